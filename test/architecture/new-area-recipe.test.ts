/**
 * The recipe "How to add an area" (docs/architecture.md) holds when followed literally:
 * scripts/new-area.mjs scaffolds an empty area on a copy of the tree, and the copy passes every
 * architecture check (layout, import rules, constructions, the composition root, the doc's
 * table) and compiles.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { latePatches, longFunctions, MAX_LINES } from './support/composition-root.js';
import { REPOSITORY, violationsIn } from './support/depcruise.js';
import { foreignConstructions } from './support/foreign-constructions.js';
import { documentedTable, expectedTable, layoutProblems } from './support/layout.js';

const run = promisify(execFile);
/** What the copy needs: the sources, the rules, the docs the checks read, the test support the scaffolded test uses. */
const COPIED = [
  'src',
  'test/support',
  'docs/architecture.md',
  'docs/areas',
  'architecture.json',
  '.dependency-cruiser.cjs',
  'package.json',
];

let root: string;
let touched: string[];

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), 'new-area-'));
  for (const item of COPIED) {
    cpSync(path.join(REPOSITORY, item), path.join(root, item), { recursive: true });
  }
  symlinkSync(path.join(REPOSITORY, 'node_modules'), path.join(root, 'node_modules'), 'dir');
  const tsconfig = JSON.parse(readFileSync(path.join(REPOSITORY, 'tsconfig.json'), 'utf8')) as {
    include: string[];
  };
  tsconfig.include = ['src', 'test/widget-boxes'];
  writeFileSync(path.join(root, 'tsconfig.json'), JSON.stringify(tsconfig));
  const script = path.join(REPOSITORY, 'scripts/new-area.mjs');
  const { stdout } = await run(process.execPath, [script, 'widget-boxes', '--root', root]);
  touched = stdout.trim().split('\n');
}, 60_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

it('the scaffold writes the files the recipe lists', () => {
  expect(touched).toEqual([
    'src/widget-boxes/widget-boxes-area.ts (new)',
    'src/app/store-indexes.ts',
    'src/app/content-areas.ts',
    'docs/architecture.md',
    'docs/areas/widget-boxes.md (new)',
    'test/widget-boxes/widget-boxes-area.test.ts (new)',
  ]);
});

it('the scaffolded area passes every architecture check', async () => {
  expect(layoutProblems(root)).toEqual([]);
  expect(await violationsIn(root)).toEqual([]);
  expect(foreignConstructions(root)).toEqual([]);
  expect(longFunctions(root, MAX_LINES)).toEqual([]);
  expect(latePatches(root)).toEqual([]);
  const doc = readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');
  expect(documentedTable(doc)).toEqual(expectedTable(root));
  expect(expectedTable(root)).toContain(
    'widget-boxes: area; imports areas, events, server, platform, gen',
  );
}, 60_000);

it('the tree with the scaffolded area compiles', async () => {
  const tsc = path.join(REPOSITORY, 'node_modules/typescript/bin/tsc');
  await expect(
    run(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.json'), '--noEmit']),
  ).resolves.toBeDefined();
}, 120_000);

it('an area without its row in the map is caught', () => {
  const doc = readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');
  const withoutRow = doc.replace(/^\| `src\/widget-boxes`.*\n/m, '');
  expect(documentedTable(withoutRow)).not.toEqual(expectedTable(root));
});
