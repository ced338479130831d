/**
 * Writes the "Module map" of docs/architecture.md from the code itself (`npm run docs:map`), so the
 * map cannot name a folder that is gone or miss one that came: the folders of shared/, edge/ and
 * cloud/ grouped into modules, each with its TypeScript files, lines, the purpose in the first line
 * of its README.md (the words live beside the code) and the modules and packages it imports.
 *
 * The import graph is dependency-cruiser's, read with the options of `npm run lint:deps`
 * (.dependency-cruiser.cjs, type-only imports included), so the map and the layering check see the
 * same edges. test/unit/docs/module-map.test.ts regenerates the map in memory and fails when the
 * doc differs.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type IModule } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

export const ROOTS = ['edge', 'cloud', 'shared'] as const;
export const DOC = 'docs/architecture.md';
export const START = '<!-- module-map:start -->';
export const END = '<!-- module-map:end -->';

/** One module of the map: a folder and the files it gathers (its subfolders' included). */
export interface ModuleInfo {
  /** The folder, e.g. `shared/sync` or `shared/modules/billing`. */
  folder: string;
  files: string[];
  lines: number;
  subfolders: string[];
  /** First line of the folder's README.md without its `#`, or null when the folder has none. */
  purpose: string | null;
  dependsOn: string[];
  packages: string[];
}

/** Product code: TypeScript the service and its web apps are built from (not generated type files). */
function isProductCode(path: string): boolean {
  return /\.tsx?$/.test(path) && !path.endsWith('.d.ts');
}

/**
 * The module a file belongs to. A domain module (shared/modules/<domain>) and a web app
 * (shared/ui/<app>) are each one module, other folders one per second level (shared/db gathers
 * db/migrations and db/tables); the files at the root of edge/, cloud/, shared/ and
 * shared/modules/ are a module of their own (the entry points and the composition root).
 */
export function moduleOf(file: string): string {
  const parts = file.split('/');
  const folders = parts.slice(0, -1);
  if ((folders[1] === 'modules' || folders[1] === 'ui') && folders.length >= 3)
    return folders.slice(0, 3).join('/');
  return folders.slice(0, 2).join('/');
}

/** Every product file under the roots, as a path relative to `root` with forward slashes. */
export function productFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(join(root, dir)).sort()) {
      const path = `${dir}/${name}`;
      if (statSync(join(root, path)).isDirectory()) walk(path);
      else if (isProductCode(path)) out.push(path);
    }
  };
  for (const top of ROOTS) walk(top);
  return out;
}

/** The npm package an import names (`@scope/name/sub` -> `@scope/name`). */
function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

/** Each product file's local imports (resolved paths) and npm packages, from dependency-cruiser. */
export async function readImportGraph(): Promise<Map<string, { local: string[]; packages: string[] }>> {
  const options = await extractDepcruiseOptions('./.dependency-cruiser.cjs');
  const tsConfig = extractTSConfig('tsconfig.json');
  // Only the edges are needed here: the rules are `npm run lint:deps`'s business.
  const result = await cruise(
    [...ROOTS],
    { ...options, ruleSet: undefined, validate: false },
    {},
    { tsConfig },
  );
  if (typeof result.output === 'string') throw new Error('dependency-cruiser answered text, not a graph');
  const graph = new Map<string, { local: string[]; packages: string[] }>();
  for (const m of result.output.modules as IModule[]) {
    if (!isProductCode(m.source)) continue;
    const local: string[] = [];
    const packages: string[] = [];
    for (const d of m.dependencies) {
      if (d.coreModule || d.couldNotResolve) continue;
      if (d.resolved.startsWith('node_modules/')) packages.push(packageName(d.module));
      else local.push(d.resolved);
    }
    graph.set(m.source, { local, packages });
  }
  return graph;
}

function readmePurpose(root: string, folder: string): string | null {
  let text: string;
  try {
    text = readFileSync(join(root, folder, 'README.md'), 'utf8');
  } catch {
    return null;
  }
  const first = text
    .split('\n')[0]
    ?.replace(/^#+\s*/, '')
    .trim();
  return first ? first : null;
}

function countLines(path: string): number {
  const text = readFileSync(path, 'utf8');
  return text.length === 0 ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** The modules, sorted by folder, with what each imports from the others. */
export function collectModules(
  root: string,
  files: string[],
  graph: Map<string, { local: string[]; packages: string[] }>,
): ModuleInfo[] {
  const byFolder = new Map<string, ModuleInfo>();
  for (const file of files) {
    const folder = moduleOf(file);
    let info = byFolder.get(folder);
    if (!info) {
      info = { folder, files: [], lines: 0, subfolders: [], purpose: null, dependsOn: [], packages: [] };
      byFolder.set(folder, info);
    }
    info.files.push(file);
    info.lines += countLines(join(root, file));
    const sub = file.slice(folder.length + 1).split('/');
    if (sub.length > 1 && !info.subfolders.includes(sub[0]!)) info.subfolders.push(sub[0]!);
    const edges = graph.get(file) ?? { local: [], packages: [] };
    for (const target of edges.local) {
      const to = moduleOf(target);
      if (to !== folder && ROOTS.some((r) => target.startsWith(`${r}/`)) && !info.dependsOn.includes(to)) {
        info.dependsOn.push(to);
      }
    }
    for (const p of edges.packages) if (!info.packages.includes(p)) info.packages.push(p);
  }
  const modules = [...byFolder.values()].sort((a, b) =>
    a.folder < b.folder ? -1 : a.folder > b.folder ? 1 : 0,
  );
  for (const m of modules) {
    m.purpose = readmePurpose(root, m.folder);
    m.subfolders.sort();
    m.dependsOn.sort();
    m.packages.sort();
  }
  return modules;
}

/**
 * Lines to the nearest hundred: the map says how big a module is, and an edit of a few lines does
 * not make it stale.
 */
function roundedLines(lines: number): string {
  return lines < 50 ? '< 50' : `~${(Math.round(lines / 100) * 100).toLocaleString('en-US')}`;
}

function row(m: ModuleInfo): string {
  const subs = m.subfolders.length > 0 ? ` (${m.subfolders.map((s) => `${s}/`).join(', ')})` : '';
  const purpose = m.purpose ?? '**no README.md: add one whose first line says what the folder is for**';
  const deps = m.dependsOn.map((d) => `\`${d}/\``).join(', ') || 'none';
  const packages = m.packages.length > 0 ? m.packages.join(', ') : 'none';
  const cell = (s: string): string => s.replaceAll('|', '\\|');
  return `| [\`${m.folder}/\`](../${m.folder}/README.md)${subs} | ${m.files.length} | ${roundedLines(m.lines)} | ${cell(purpose)} | ${deps} | ${cell(packages)} |`;
}

/** The generated part of the doc, markers included. */
export function renderModuleMap(modules: ModuleInfo[]): string {
  const groups: Array<[string, (m: ModuleInfo) => boolean]> = [
    ['edge/ and cloud/: what only one role runs', (m) => !m.folder.startsWith('shared')],
    [
      'shared/: what both roles run',
      (m) => m.folder.startsWith('shared') && !/^shared\/(modules|ui)\//.test(m.folder),
    ],
    ['shared/modules/: the domain modules', (m) => m.folder.startsWith('shared/modules/')],
    ['shared/ui/: the web apps (browser code)', (m) => m.folder.startsWith('shared/ui/')],
  ];
  const out = [
    START,
    "<!-- Generated by `npm run docs:map` (tools/module-map.ts) from the import graph and each folder's",
    '     README.md: edit those, not this part. test/unit/docs/module-map.test.ts checks it is current. -->',
    '',
  ];
  for (const [title, belongs] of groups) {
    out.push(`#### ${title}`, '');
    out.push('| module | files | lines | what it is for | imports modules | imports packages |');
    out.push('| --- | ---: | ---: | --- | --- | --- |');
    for (const m of modules.filter(belongs)) out.push(row(m));
    out.push('');
  }
  const files = modules.reduce((n, m) => n + m.files.length, 0);
  const lines = modules.reduce((n, m) => n + m.lines, 0);
  out.push(
    `${modules.length} modules, ${files} files, ${roundedLines(lines)} lines of TypeScript. ` +
      'A module is a folder with its subfolders, except that each domain module and each web app is ' +
      'one, and the files at the root of `edge/`, `cloud/`, `shared/` and `shared/modules/` are one. Lines are ' +
      'rounded to the nearest hundred.',
    END,
  );
  return out.join('\n');
}

/** `doc` with the part between the markers replaced by `map` (markers included in `map`). */
export function spliceModuleMap(doc: string, map: string): string {
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${DOC} has no ${START} ... ${END} markers`);
  return doc.slice(0, start) + map + doc.slice(end + END.length);
}

/** The doc as it is and as `npm run docs:map` would write it. */
export async function architectureDoc(root = process.cwd()): Promise<{ current: string; expected: string }> {
  const current = readFileSync(join(root, DOC), 'utf8');
  const modules = collectModules(root, productFiles(root), await readImportGraph());
  return { current, expected: spliceModuleMap(current, renderModuleMap(modules)) };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = process.cwd();
  const { current, expected } = await architectureDoc(root);
  if (current === expected) console.log(`${DOC}: the module map is current`);
  else {
    writeFileSync(join(root, DOC), expected);
    console.log(`${DOC}: module map written (${relative(root, join(root, DOC))})`);
  }
}
