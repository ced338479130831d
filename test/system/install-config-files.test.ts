import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * deploy/edge/install.sh installs the certificate, key and CA files that came beside the config
 * where the config names them, and only into /etc/yard (docs/install.md "Install on a yard box"): a config
 * that names a file elsewhere (a crontab) with that file beside it is refused before anything is
 * written. Runs the script against throwaway roots (--root) and a stand-in built checkout: the
 * refusal comes before the release is copied, and the accepted configs are run with --dry-run.
 *
 * Needs root (the script refuses to run otherwise) and useradd (its checks look for it).
 */
const runnable =
  process.getuid?.() === 0 && existsSync('/usr/sbin/useradd') && existsSync('/usr/bin/setpriv');
if (!runnable) console.warn('SKIPPED: the install script needs root, setpriv and useradd (CI has them).');

const work = mkdtempSync(join(tmpdir(), 'yard-install-files-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** What check_source looks for in a built checkout; --dry-run reads nothing else of it. */
function standInCheckout(): string {
  const dir = join(work, 'checkout');
  if (existsSync(dir)) return dir;
  for (const d of ['dist/edge', 'dist/cloud', 'dist/ui', 'node_modules/.bin', 'node_modules/better-sqlite3'])
    mkdirSync(join(dir, d), { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{"name":"yard","version":"0.0.0-test"}\n');
  writeFileSync(join(dir, 'package-lock.json'), '{}\n');
  for (const f of ['dist/edge/main.js', 'dist/cloud/main.js', 'node_modules/.bin/pm2'])
    writeFileSync(join(dir, f), '');
  return dir;
}

/** A config folder as the technician copied it: the config and the files beside it. */
function siteFolder(name: string, config: object, beside: Record<string, string>): string {
  const dir = join(work, name);
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'north-1.edge.json'),
    JSON.stringify({ role: 'edge', siteId: 'north-1', ...config }),
  );
  for (const [file, content] of Object.entries(beside)) writeFileSync(join(dir, file), content);
  return join(dir, 'north-1.edge.json');
}

function install(root: string, config: string, ...extra: string[]) {
  return spawnSync(
    'bash',
    ['deploy/edge/install.sh', '--root', root, '--source', standInCheckout(), '--config', config, ...extra],
    { encoding: 'utf8', timeout: 60_000 },
  );
}

/** Every file and folder under `dir`, relative to it. */
function everything(dir: string, prefix = ''): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => [
    `${prefix}${e.name}`,
    ...(e.isDirectory() ? everything(join(dir, e.name), `${prefix}${e.name}/`) : []),
  ]);
}

const CRON = '* * * * * root touch /tmp/owned\n';

describe.skipIf(!runnable)('edge install: the files a config names', () => {
  it.each([
    ['tls.certFile', { tls: { certFile: '/etc/cron.d/yard-evil', keyFile: '/etc/yard/north-1.edge.key' } }],
    ['tls.keyFile', { tls: { certFile: '/etc/yard/north-1.edge.crt', keyFile: '/etc/cron.d/yard-evil' } }],
    ['mqtt.caFile', { mqtt: { caFile: '/etc/cron.d/yard-evil' } }],
    [
      'tls.caFile',
      {
        tls: {
          certFile: '/etc/yard/a.crt',
          keyFile: '/etc/yard/a.key',
          caFile: '/etc/yard/../cron.d/yard-evil',
        },
      },
    ],
    ['tls.certFile', { tls: { certFile: 'yard-evil', keyFile: '/etc/yard/north-1.edge.key' } }],
  ])(
    'a config naming a file outside /etc/yard as its %s, the file beside it: refused, nothing written',
    (setting, config) => {
      const root = join(work, `root-${Math.random().toString(36).slice(2)}`);
      const file = siteFolder(`site-${Math.random().toString(36).slice(2)}`, config, {
        'yard-evil': CRON,
        'north-1.edge.crt': 'cert',
        'north-1.edge.key': 'key',
      });
      const run = install(root, file);
      expect(run.status).toBe(1);
      const path = Object.values(config)
        .flatMap((section) => Object.values(section))
        .find((p) => String(p).endsWith('yard-evil'));
      expect(run.stderr).toContain(
        `Error: ${file} names "${path}" as its ${setting} and yard-evil came beside it, but the installer copies such files only into /etc/yard/. Nothing was changed.`,
      );
      expect(run.stderr).toMatch(/^Fix: name the file in \/etc\/yard\/ in the config/m);
      expect(everything(root)).toEqual([]);
    },
  );

  it("a folder of /etc/yard that links elsewhere, or the script's own files there: refused", () => {
    const root = join(work, 'root-link');
    mkdirSync(join(root, 'etc/yard'), { recursive: true });
    mkdirSync(join(root, 'etc/cron.d'));
    symlinkSync('../cron.d', join(root, 'etc/yard/tls'));
    const linked = install(
      root,
      siteFolder('site-link', { mqtt: { caFile: '/etc/yard/tls/yard-evil' } }, { 'yard-evil': CRON }),
    );
    expect(linked.status).toBe(1);
    expect(linked.stderr).toContain('names "/etc/yard/tls/yard-evil" as its mqtt.caFile');
    expect(everything(root)).toEqual(['etc', 'etc/cron.d', 'etc/yard', 'etc/yard/tls']);

    const own = install(
      root,
      siteFolder(
        'site-own',
        { mqtt: { caFile: '/etc/yard/edge.config.cjs' } },
        { 'edge.config.cjs': 'require("child_process")' },
      ),
    );
    expect(own.status).toBe(1);
    expect(own.stderr).toContain('names "/etc/yard/edge.config.cjs" as its mqtt.caFile');
  });

  it('files named in /etc/yard are installed there; a file named elsewhere and not beside is read where it is', () => {
    const root = join(work, 'root-ok');
    const file = siteFolder(
      'site-ok',
      {
        tls: { certFile: '/etc/yard/tls/north-1.edge.crt', keyFile: '/etc/yard/north-1.edge.key' },
        mqtt: { caFile: '/etc/ssl/certs/yard-mqtt-ca.pem' },
      },
      { 'north-1.edge.crt': 'cert', 'north-1.edge.key': 'key' },
    );
    const run = install(root, file, '--dry-run');
    expect(run.stderr).not.toMatch(/Error/);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(
      `would    ${root}/etc/yard/tls/north-1.edge.crt (new file, mode 0644, root:yard)`,
    );
    expect(run.stdout).toContain(
      `would    ${root}/etc/yard/north-1.edge.key (new file, mode 0600, yard:yard)`,
    );
    expect(run.stdout).not.toContain('yard-mqtt-ca.pem (new file');
    expect(run.stderr).toContain(
      'the config names /etc/ssl/certs/yard-mqtt-ca.pem (mqtt.caFile) but it is not there',
    );
  });
});
