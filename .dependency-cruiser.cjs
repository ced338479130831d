/**
 * Layering checks run by `npm run lint` (dependency-cruiser), type-only imports included: no import
 * cycle anywhere; the sync engine knows no module, core or role adapter; a module takes no Core and
 * reads no other module's repo (docs/architecture.md "Layering rules").
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'No import cycle, type-only imports included: each file can be read knowing only what it imports. ' +
        'Services get each other in their constructors (shared/services.ts builds them in order).',
      from: {},
      to: { circular: true },
    },
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
        'its routes the services they call.',
      // modules/index.ts registers every module's routes from the assembled core: it is part of the
      // composition root (with app.ts and services.ts), not a module.
      from: { path: '^shared/modules/', pathNot: '^shared/modules/index[.]ts$' },
      to: { path: '^shared/core[.]ts$' },
    },
    {
      name: 'no-foreign-repo',
      severity: 'error',
      comment:
        "A module reads another module's records through that module's service (or a narrow interface it declares, " +
        'wired in shared/services.ts), never through its repo; SQL helpers they share live in shared/db/.',
      from: { path: '^shared/modules/([^/]+)/' },
      to: { path: '^shared/modules/[^/]+/repo[.]ts$', pathNot: '^shared/modules/$1/' },
    },
    {
      name: 'ui-is-a-client',
      severity: 'error',
      comment:
        'The web apps (shared/ui) are clients of the published API: they import their own code, npm packages and ' +
        'the types generated from the OpenAPI document (shared/ui/common/api/schema.d.ts), never server code.',
      from: { path: '^shared/ui/' },
      to: { pathNot: ['^shared/ui/', 'node_modules'] },
    },
    {
      name: 'ui-app-boundary',
      severity: 'error',
      comment:
        'A web app (shared/ui/<app>) imports only its own folder, shared/ui/common and npm packages: what two apps ' +
        'share lives in common/, so each app can change without breaking another (docs/architecture.md).',
      from: { path: '^shared/ui/([^/]+)/', pathNot: '^shared/ui/common/' },
      to: { path: '^shared/ui/', pathNot: ['^shared/ui/$1/', '^shared/ui/common/'] },
    },
    {
      name: 'ui-common-knows-no-app',
      severity: 'error',
      comment:
        'shared/ui/common serves every app: it imports no app folder, or two apps would be tied through it.',
      from: { path: '^shared/ui/common/' },
      to: { path: '^shared/ui/', pathNot: '^shared/ui/common/' },
    },
    // docs/architecture.md "The dashboard's data layer": a screen's component renders and handles
    // events; what it reads and writes goes through its app's data modules or hooks.
    {
      name: 'components-call-no-api',
      severity: 'error',
      comment:
        "A web app's component (.tsx) does not call the API client: it uses its screen's data module " +
        '(data.ts beside it) or a hook. Type-only imports of the generated schemas are fine.',
      from: { path: '^shared/ui/.+[.]tsx$' },
      to: { path: '^shared/ui/common/api/client[.]ts$', dependencyTypesNot: ['type-only'] },
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
      extensions: ['.ts', '.tsx', '.d.ts', '.js', '.json'],
    },
  },
};
