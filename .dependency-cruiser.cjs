/**
 * The import rules of src/ (docs/architecture.md, "Dependencies point one way"), checked by
 * test/architecture/dependencies.test.ts and by hand with
 *   npx depcruise src --config .dependency-cruiser.cjs
 */
const AREAS = '(accounts|account-lifecycle|admin|channels|contacts|groups|identity|limits|location|keys|media|messaging|mfa|phone|polls|presence|profile|push|realtime|recovery|relay|stickers|stories|system)';

module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycles',
      comment: 'No two folders import each other, directly or through others.',
      severity: 'error',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-module-cycles',
      comment: 'No module imports itself through others.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'platform-knows-no-area',
      comment: 'The ground floor (store, shared state, config, errors, RPC pipeline, metrics) imports only itself and generated code.',
      severity: 'error',
      from: { path: '^src/platform/' },
      to: { path: '^src/', pathNot: '^src/(platform|gen)/' },
    },
    {
      name: 'only-the-entry-point-imports-the-app',
      comment:
        'src/app is the composition root: nothing but the entry points depend on it, src/main.ts and the operator commands in src/cli/ (ensure-indexes builds the indexes the app declares).',
      severity: 'error',
      from: { pathNot: ['^src/app/', '^src/main\\.ts$', '^src/cli/'] },
      to: { path: '^src/app/' },
    },
    {
      name: 'area-factories-are-called-by-the-app',
      comment: 'Only src/app builds an area (its *-area.ts factory).',
      severity: 'error',
      from: { pathNot: '^src/app/' },
      to: { path: `^src/${AREAS}/[^/]+-area\\.ts$` },
    },
    {
      name: 'services-are-adapters',
      comment: 'A service file adapts RPCs to domain objects: it does not query the store itself.',
      severity: 'error',
      from: { path: '-service\\.ts$' },
      to: { path: '^src/platform/store/' },
    },
  ],
  options: {
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/gen/' },
  },
};
