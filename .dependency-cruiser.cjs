/**
 * The import rules of src/ (docs/architecture.md, "Wiring"), checked by
 * test/architecture/dependencies.test.ts and by hand with
 *   npx depcruise src --config .dependency-cruiser.cjs
 * The areas are not listed here: they are the folders of ./src (under the directory depcruise runs
 * in) that architecture.json does not declare a floor, read when this file loads, so every rule
 * covers a new area without an edit.
 * `no-folder-cycles` compares innermost folders (src/relay → src/keys/store → … is no cycle with
 * src/keys → src/relay); the cycles between the folders directly under src/ are found by
 * test/architecture/support/depcruise.ts (no-top-folder-cycles) from the same graph.
 */
const { readdirSync } = require('node:fs');
const path = require('node:path');
const layout = require('./architecture.json');

const FLOORS = Object.keys(layout.floors);
const SERVICE_AREAS = layout.areas.serviceAreas;
const AREAS = readdirSync(path.resolve('src'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !FLOORS.includes(entry.name))
  .map((entry) => entry.name)
  .sort();

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A regular expression group matching one of `names` (or nothing, when there are none). */
const oneOf = (names) => (names.length > 0 ? `(${names.map(escape).join('|')})` : '(?!)');
/** The folders a floor (or the areas) may import besides itself: architecture.json's `imports`. */
const importable = (imports) => [
  ...imports.filter((name) => name !== 'areas'),
  ...(imports.includes('areas') ? AREAS : []),
];
/** An area's factory: src/<area>/<area>-area.ts, and src/<area>/<area>-service.ts for a one-service area. */
const FACTORIES = `^src/${oneOf(AREAS.flatMap((area) => [`${area}/${area}-area`, ...(SERVICE_AREAS.includes(area) ? [`${area}/${area}-service`] : [])]))}\\.ts$`;
/** `src/main.ts` stands for that file, `src/cli/` for the folder. */
const entryPoint = (entry) => (entry.endsWith('/') ? `^${escape(entry)}` : `^${escape(entry)}$`);

const floorRules = Object.entries(layout.floors)
  .filter(([, floor]) => !floor.imports.includes('*'))
  .map(([name, floor]) => ({
    name: floor.imports.includes('areas')
      ? `${name}-imports-only-areas-and-its-floors`
      : `${name}-knows-no-area`,
    comment: `src/${name} (${floor.role}) imports only itself${floor.imports.length > 0 ? ` and ${floor.imports.join(', ')}` : ''} (architecture.json).`,
    severity: 'error',
    from: { path: `^src/${escape(name)}/` },
    to: { path: '^src/', pathNot: `^src/${oneOf([name, ...importable(floor.imports)])}/` },
  }));

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
    ...floorRules,
    {
      name: 'areas-import-only-areas-and-their-floors',
      comment: `An area imports other areas and the floors ${layout.areas.imports.join(', ')} (architecture.json), never the app, a transport or a command.`,
      severity: 'error',
      from: { path: `^src/${oneOf(AREAS)}/` },
      to: { path: '^src/', pathNot: `^src/${oneOf([...AREAS, ...layout.areas.imports])}/` },
    },
    {
      name: 'only-the-entry-point-imports-the-app',
      comment: `src/app is the composition root: nothing but the entry points (${layout.entryPoints.join(', ')}) depends on it.`,
      severity: 'error',
      from: { pathNot: ['^src/app/', ...layout.entryPoints.map(entryPoint)] },
      to: { path: '^src/app/' },
    },
    {
      name: 'area-factories-are-called-by-the-app',
      comment:
        'Only src/app builds an area (src/<area>/<area>-area.ts, or <area>-service.ts for a one-service area).',
      severity: 'error',
      from: { pathNot: '^src/app/' },
      to: { path: FACTORIES },
    },
    {
      name: 'no-area-imports-another-areas-factory',
      comment:
        'An area receives the parts of another area it uses from the app; it does not build that area.',
      severity: 'error',
      from: { path: `^src/${oneOf(AREAS)}/` },
      to: { path: FACTORIES, pathNot: '^src/$1/' },
    },
    {
      name: 'services-are-adapters',
      comment:
        'A service file (*-service.ts, or a handler under a service/ folder of an area) adapts RPCs to domain objects: it does not query the store itself.',
      severity: 'error',
      from: {
        path: [
          '-service\\.ts$',
          `^src/${oneOf(AREAS)}/service/`,
          `^src/${oneOf(AREAS)}/.*/service/`,
        ],
      },
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
