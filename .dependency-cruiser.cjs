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
