#!/usr/bin/env node
/**
 * Scaffolds an empty area by the recipe of docs/architecture.md ("How to add an area"): the
 * steps every area takes, before it has records, a service or events of its own (those steps
 * are the area's first real change, and the recipe says where each goes):
 *   9  the factory       src/<area>/<area>-area.ts (create<Area>Area, <area>Indexes)
 *   10 the indexes       src/app/store-indexes.ts
 *   11 the wiring        src/app/content-areas.ts (the last step before the account areas)
 *   12 the map          docs/architecture.md, a row of the areas table
 *   13 the page          docs/areas/<area>.md
 *   14 a test            test/<area>/<area>-area.test.ts
 * Usage: npm run new-area -- <area> [--root DIR]. Prints every file it writes or edits;
 * test/architecture/new-area-recipe.test.ts runs it on a copy of the tree and checks the result
 * against every architecture rule.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
const rootAt = args.indexOf('--root');
const root = rootAt >= 0 ? path.resolve(args[rootAt + 1]) : process.cwd();
// The first argument that is neither an option nor the value of --root (with no --root, index 0
// is the area, not a value).
const area = args.find(
  (arg, index) => !arg.startsWith('--') && (rootAt < 0 || index !== rootAt + 1),
);
const layout = JSON.parse(readFileSync(path.join(root, 'architecture.json'), 'utf8'));

function fail(message) {
  console.error(`new-area: ${message}`);
  process.exit(2);
}
if (!area || !/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(area))
  fail('give the area a folder name in kebab case, e.g. npm run new-area -- reminders');
if (area in layout.floors) fail(`${area} is a floor in architecture.json`);
if (existsSync(path.join(root, 'src', area))) fail(`src/${area} exists already`);

const pascal = area.replace(/(^|-)([a-z0-9])/g, (_, __, letter) => letter.toUpperCase());
const camel = pascal[0].toLowerCase() + pascal.slice(1);
const touched = [];

function write(file, text) {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), text);
  touched.push(`${file} (new)`);
}

/** Replaces `anchor` (which must occur once) in `file` by what `change` makes of it. */
function edit(file, anchor, change) {
  const full = path.join(root, file);
  const text = readFileSync(full, 'utf8');
  if (text.split(anchor).length !== 2) fail(`${file}: expected "${anchor}" exactly once`);
  writeFileSync(full, text.replace(anchor, change(anchor)));
  if (!touched.includes(file)) touched.push(file);
}

write(
  `src/${area}/${area}-area.ts`,
  `/** The ${area} area: what it owns and why it is an area of its own (docs/areas/${area}.md). */
import type { DocumentStore, IndexSpec } from '../platform/store/document-store.js';

export interface ${pascal}Dependencies {
  readonly store: DocumentStore;
}

/** Every index of the ${area} area (created at start, and by the ensure-indexes command). */
export const ${camel}Indexes: IndexSpec[] = [];

export async function create${pascal}Area(deps: ${pascal}Dependencies) {
  await deps.store.ensureIndexes(${camel}Indexes);
  return {};
}

export type ${pascal}Area = Awaited<ReturnType<typeof create${pascal}Area>>;
`,
);

edit(
  'src/app/store-indexes.ts',
  'export const storeIndexes: IndexSpec[] = [\n',
  (anchor) => `${anchor}  ...${camel}Indexes,\n`,
);
edit(
  'src/app/store-indexes.ts',
  'import type { DocumentStore, IndexSpec }',
  (anchor) => `import { ${camel}Indexes } from '../${area}/${area}-area.js';\n${anchor}`,
);

edit(
  'src/app/content-areas.ts',
  'import type { ApiAreaPorts }',
  (anchor) => `import { create${pascal}Area } from '../${area}/${area}-area.js';\n${anchor}`,
);
edit(
  'src/app/content-areas.ts',
  '  return { polls, stickers, stories, media',
  (anchor) => `  const ${camel} = await create${pascal}Area({ store });\n${anchor}, ${camel}`,
);

const importsText = ['areas', ...layout.areas.imports].join(', ');
edit(
  'docs/architecture.md',
  '<!-- areas:end -->',
  (anchor) =>
    `| \`src/${area}\` | area | ${importsText} | what it owns; [${area}](areas/${area}.md) |\n${anchor}`,
);

write(
  `docs/areas/${area}.md`,
  `# ${pascal} (\`src/${area}\`)

What the area owns, its records, its rules and their reasons, and its account data. How areas
fit together is in the [architecture map](../architecture.md).
`,
);

write(
  `test/${area}/${area}-area.test.ts`,
  `import { create${pascal}Area, ${camel}Indexes } from '../../src/${area}/${area}-area.js';
import { openEmbeddedStore } from '../support/stores-under-test.js';

it('the ${area} area builds on a store with its indexes', async () => {
  const underTest = await openEmbeddedStore();
  try {
    await expect(create${pascal}Area({ store: underTest.store })).resolves.toEqual({});
    expect(${camel}Indexes).toEqual([]);
  } finally {
    await underTest.dispose();
  }
});
`,
);

console.log(touched.join('\n'));
