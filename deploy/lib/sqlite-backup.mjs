// A consistent copy of a SQLite database (SQLite's online backup: also right when a -wal file is
// beside it), mode 0600. Usage: node <release>/deploy/lib/sqlite-backup.mjs <database> <copy>
import { chmodSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(new URL('../../package.json', import.meta.url));
const Database = require('better-sqlite3');
const [source, target] = process.argv.slice(2);
const db = new Database(source, { readonly: true, fileMustExist: true });
await db.backup(target);
db.close();
chmodSync(target, 0o600);
console.log(`backed up ${source} to ${target}`);
