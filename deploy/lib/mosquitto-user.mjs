// The Mosquitto password file with one user's line made right for a password read from stdin:
// an existing line that already verifies is kept as it is (its salt too), so a second install
// changes nothing; otherwise the line is added or replaced. Other users' lines (the sites that
// `npm run site:add` adds) are kept. Prints the whole file.
// Usage: node mosquitto-user.mjs <password_file> <user> < password
import { existsSync, readFileSync } from 'node:fs';

const { hashMosquittoPassword, verifyMosquittoPassword } = await import(
  new URL('../../dist/shared/sync/mosquitto-password.js', import.meta.url).href
);
const [file, user] = process.argv.slice(2);
const password = readFileSync(0, 'utf8').trim();
if (!password) throw new Error('no password on stdin');
const lines = (existsSync(file) ? readFileSync(file, 'utf8') : '').split('\n').filter((line) => line !== '');
const at = lines.findIndex((line) => line.startsWith(`${user}:`));
if (at < 0 || !verifyMosquittoPassword(password, lines[at].slice(user.length + 1))) {
  const entry = `${user}:${hashMosquittoPassword(password)}`;
  if (at < 0) lines.push(entry);
  else lines[at] = entry;
}
process.stdout.write(`${lines.join('\n')}\n`);
