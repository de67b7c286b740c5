/**
 * No file under src/<area>/ constructs an object of another area: the app (src/app) builds the
 * areas and hands each the parts of the others it uses.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { foreignConstructions } from './support/foreign-constructions.js';
import { REPOSITORY } from './support/depcruise.js';

it('no area constructs another area’s objects', () => {
  expect(foreignConstructions(REPOSITORY)).toEqual([]);
});

it('a construction of another area’s class is found', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'constructions-'));
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  };
  try {
    write('package.json', JSON.stringify({ type: 'module' }));
    write('src/contacts/block-list.ts', 'export class BlockList {}\n');
    write('src/contacts/index.ts', "export { BlockList as Blocks } from './block-list.js';\n");
    write('src/messaging/messaging-area.ts', "import { Blocks } from '../contacts/index.js';\nimport { Own } from './own.js';\nexport const parts = [new Blocks(), new Own()];\n");
    write('src/messaging/own.ts', 'export class Own {}\n');
    expect(foreignConstructions(root)).toEqual(['src/messaging/messaging-area.ts: new BlockList (contacts)']);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
