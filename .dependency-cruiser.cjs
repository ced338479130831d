/**
 * Layering checks run by `npm run lint` (dependency-cruiser). Only rules the code keeps today are
 * listed; each one that is made true later (no import cycles: core <-> services is still one) is
 * added when it passes.
 */
module.exports = {
  forbidden: [
    {
      name: 'sync-knows-no-module',
      severity: 'error',
      comment:
        'The sync engine depends on db, clock, log, config and the typed event bus only (shared/sync/deps.ts). ' +
        'Modules react to its events (shared/reactions.ts); it never imports a module, type-only imports included.',
      from: { path: '^shared/sync/' },
      to: { path: '^shared/modules/' },
    },
    {
      name: 'sync-takes-no-core',
      severity: 'error',
      comment:
        'The core (and its services) reaches every module: sync parts take Pick<SyncDeps, ...> instead, ' +
        'which the core satisfies.',
      from: { path: '^shared/sync/' },
      to: { path: '^shared/(core|services|app|reactions)\\.ts$' },
    },
    {
      name: 'sync-is-shared',
      severity: 'error',
      comment: 'shared/sync serves both roles: the edge and cloud adapters build on it, not the reverse.',
      from: { path: '^shared/sync/' },
      to: { path: '^(edge|cloud)/' },
    },
    {
      name: 'module-takes-no-core',
      severity: 'error',
      comment:
        'A converted module names what it uses: its service takes XDeps = Pick<CoreParts, ...> & { services it calls }, ' +
        'its routes the services they call. Modules still taking Core are left out of `from` until converted.',
      from: {
        path: '^shared/modules/(auth|settings|yards|carriers|drivers|trucks|trailers|push|dashboard|ui-assets|platform)/|^shared/modules/sync/(routes|status|dead-letters)[.]ts$',
      },
      to: { path: '^shared/core[.]ts$' },
    },
    {
      name: 'no-foreign-repo',
      severity: 'error',
      comment:
        "A module reads another module's records through that module's service (or a narrow interface it declares, " +
        'wired in shared/services.ts), never through its repo; SQL helpers they share live in shared/db/.',
      from: {
        path: '^shared/modules/(auth|settings|yards|carriers|drivers|trucks|trailers|push|dashboard|ui-assets|platform)/',
      },
      to: { path: '^shared/modules/[^/]+/repo[.]ts$', pathNot: '^shared/modules/$1/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // See type-only imports too: a type import of a module is still a dependency on it.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.json'],
    },
  },
};
