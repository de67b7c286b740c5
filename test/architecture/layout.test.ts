/**
 * architecture.json is the one list of what the folders of src/ are: every folder is a floor it
 * names or an area (src/<area>/<area>-area.ts exporting create<Area>Area, or the service factory
 * of a one-service area), every floor it names exists, and docs/architecture.md's table of
 * folders says the same.
 */
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPOSITORY } from './support/depcruise.js';
import {
  LAYOUT,
  documentedTable,
  expectedTable,
  layoutProblems,
  pascal,
} from './support/layout.js';

it('every folder under src/ is a floor of architecture.json or an area, and every floor exists', () => {
  expect(layoutProblems(REPOSITORY)).toEqual([]);
});

it('a folder that is neither, and a floor without a folder, are reported', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'layout-'));
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  };
  try {
    for (const floor of Object.keys(LAYOUT.floors).filter((name) => name !== 'events'))
      write(`src/${floor}/index.ts`, 'export {};\n');
    for (const area of LAYOUT.areas.serviceAreas)
      write(
        `src/${area}/${area}-service.ts`,
        `export function create${pascal(area)}Service() {}\n`,
      );
    write(
      'src/account-lifecycle/account-lifecycle-area.ts',
      'export async function createAccountLifecycleArea() {}\n',
    );
    write(
      'src/relay/relay-area.ts',
      'const createRelayArea = () => 1;\nexport { createRelayArea };\n',
    );
    write('src/keys/keys-area.ts', 'export async function createKeyArea() {}\n');
    write('src/widgets/widget.ts', 'export class Widget {}\n');
    expect(layoutProblems(root)).toEqual([
      'src/keys is neither a floor in architecture.json nor an area: src/keys/keys-area.ts does not export createKeysArea',
      'src/widgets is neither a floor in architecture.json nor an area: there is no src/widgets/widgets-area.ts exporting createWidgetsArea',
      'floor events (architecture.json) has no folder src/events',
    ]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

it('the doc’s table is read between its markers, row by row', () => {
  const doc = [
    '| `src/outside` | area | areas | not in the table |',
    '<!-- areas:start: … -->',
    '| Folder | Kind | May import, besides itself | What it is |',
    '| --- | --- | --- | --- |',
    '| `src/platform` | floor | gen | ground floor |',
    '| `src/widgets` | area | areas, platform | widgets |',
    '<!-- areas:end -->',
  ].join('\n');
  expect(documentedTable(doc)).toEqual([
    'platform: floor; imports gen — ground floor',
    'widgets: area; imports areas, platform',
  ]);
  expect(() => documentedTable('no table')).toThrow('no table between');
});

it('docs/architecture.md lists exactly the floors and areas', () => {
  const doc = readFileSync(path.join(REPOSITORY, 'docs/architecture.md'), 'utf8');
  expect(documentedTable(doc)).toEqual(expectedTable(REPOSITORY));
});
