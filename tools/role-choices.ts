import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The role-choices check (docs/architecture.md "One codebase, two roles"): what differs between a
 * standalone edge, a linked edge and the cloud is named once in the role profile
 * (shared/role-profile.ts) and plugged in at the composition root. Every other product file
 * (modules, shared services, the sync engine, the edge and cloud adapters) calls the parts it was
 * given and never asks where it runs. Run by `npm run lint` and by test/unit/role-choices.test.ts.
 */

/** The profile and the composition roots: the only places that turn the role into parts. */
export const ROOTS: Record<string, string> = {
  'shared/role-profile.ts': 'computes the profile from the configuration',
  'shared/app.ts': 'the composition root: builds the profile and plugs the parts that differ',
  'shared/role-parts.ts': 'createApp chooses each part that differs by role here, from the profile',
  'shared/start-role.ts': "a process's start sequence: builds the profile and hands it to createApp",
  'edge/main.ts': "the edge process's root: builds the sync link only when linked",
  'cloud/main.ts': "the cloud process's root",
};

/** Files about the configuration itself: they check or describe it and choose no behaviour. */
export const CONFIGURATION: Record<string, string> = {
  'shared/config.ts': 'reads the configuration (an edge refuses a PostgreSQL URL)',
  'shared/config-schema.ts': 'the configuration schema: the role is one of its fields',
  'shared/tls-warnings.ts': 'warns at start about links of this configuration that lack TLS',
  'cloud/provision-site.ts': 'the provisioning tool refuses an edge configuration',
};

/** What counts as asking where one runs, each with what the finding says. */
const FLAG_READS: Array<[RegExp, string]> = [
  [/\bconfig\.role\b/, 'reads config.role'],
  [/\bsyncMode\s*\(/, 'computes the sync mode'],
  [/\bsync\.mode\b/, 'reads sync.mode'],
  [
    /\b(?:role|mode|syncMode)\s*[!=]==\s*'(?:edge|cloud|standalone|linked)'/,
    'compares the role or sync mode',
  ],
  [
    /'(?:edge|cloud|standalone|linked)'\s*[!=]==\s*[\w.]*(?:role|mode|Mode)\b/,
    'compares the role or sync mode',
  ],
  [/\brelaysAtSites\b/, 'asks whether the relays are at the sites'],
  [/\bprofile\.\w+\s*[!=]==/, 'branches on the role profile (plug the part at the root instead)'],
];

/**
 * `changes.mayWrite('yard')` asked about a table the file never writes is a role test in disguise
 * ("may I write yards?" means "am I a linked edge?"). Asked about the table it is about to write
 * (or about one row), it is the write guard's own answer and fine.
 */
const MAY_WRITE_TABLE = /\bmayWrite\(\s*'(\w+)'\s*\)/g;

function writesTable(text: string, table: string): boolean {
  const write = new RegExp(
    `\\b(?:insert|update|delete|upsert)\\w*\\(\\s*[\\w.]+\\s*,\\s*'${table}'|assertMayWrite\\(\\s*'${table}'`,
  );
  return write.test(text);
}

export interface RoleChoice {
  path: string;
  line: number;
  what: string;
  text: string;
}

const ROOT_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
const SCANNED = ['shared', 'edge', 'cloud'];
/** The web apps run in browsers and know no role; migrations are history. */
const SKIPPED = ['shared/ui/', 'shared/db/migrations/'];

function productFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      const rel = relative(root, path).split(sep).join('/');
      if (SKIPPED.some((s) => `${rel}/`.startsWith(s))) continue;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(rel);
    }
  };
  for (const dir of SCANNED) walk(join(root, dir));
  return out.sort();
}

/** Every place outside the roots and configuration files that reads the role, the mode or a relay flag. */
export function roleChoices(root: string = ROOT_DIR, allowed: Record<string, string> = {}): RoleChoice[] {
  const found: RoleChoice[] = [];
  for (const path of productFiles(root)) {
    if (path in ROOTS || path in CONFIGURATION || path in allowed) continue;
    const text = readFileSync(join(root, path), 'utf8');
    text.split('\n').forEach((line, i) => {
      const code = line.replace(/\/\/.*$/, '');
      if (/^\s*(\*|\/\*)/.test(code)) return;
      for (const [pattern, what] of FLAG_READS) {
        if (pattern.test(code)) found.push({ path, line: i + 1, what, text: line.trim() });
      }
      for (const m of code.matchAll(MAY_WRITE_TABLE)) {
        const table = m[1]!;
        if (!writesTable(text, table)) {
          found.push({
            path,
            line: i + 1,
            what: `asks mayWrite('${table}') but writes no ${table}`,
            text: line.trim(),
          });
        }
      }
    });
  }
  return found;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const found = roleChoices();
  for (const f of found) console.error(`${f.path}:${f.line}: ${f.what}: ${f.text}`);
  if (found.length > 0) {
    console.error(
      `\n${found.length} role choice(s) outside the composition root: plug the differing part in shared/app.ts ` +
        '(from the role profile, shared/role-profile.ts) or take a reported value from the profile handed in.',
    );
    process.exit(1);
  }
  console.log('role choices: none outside the composition root');
}
