/**
 * No file under src/<area>/ constructs an object of another area: the app (src/app) builds the
 * areas and hands each the parts of the others it uses. The areas: every folder of src/ that
 * architecture.json does not declare a floor.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { foreignConstructions } from './support/foreign-constructions.js';
import { REPOSITORY } from './support/depcruise.js';
import { pascal } from './support/layout.js';

it('no area constructs another area’s objects', () => {
  expect(foreignConstructions(REPOSITORY)).toEqual([]);
});

// `widgets` is a folder no list names: an area only because it is not a floor.
it.each([
  ['keys', 'relay'],
  ['relay', 'keys'],
  ['widgets', 'keys'],
  ['messaging', 'contacts'],
])(
  'a construction in %s of a class of %s is found, through a re-export under another name',
  (area, other) => {
    const root = mkdtempSync(path.join(tmpdir(), 'constructions-'));
    const write = (file: string, text: string) => {
      mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      writeFileSync(path.join(root, file), text);
    };
    try {
      const Class = `${pascal(other)}Part`;
      write('package.json', JSON.stringify({ type: 'module' }));
      write(`src/${other}/${other}-part.ts`, `export class ${Class} {}\n`);
      write(`src/${other}/index.ts`, `export { ${Class} as Renamed } from './${other}-part.js';\n`);
      write(
        `src/${area}/${area}-area.ts`,
        `import { Renamed } from '../${other}/index.js';\nimport { Own } from './own.js';\nexport const parts = [new Renamed(), new Own()];\n`,
      );
      write(`src/${area}/own.ts`, 'export class Own {}\n');
      // a floor may construct an area's class (the app does): not reported
      write(
        'src/app/start-app.ts',
        `import { ${Class} } from '../${other}/${other}-part.js';\nexport const part = new ${Class}();\n`,
      );
      expect(foreignConstructions(root)).toEqual([
        `src/${area}/${area}-area.ts: new ${Class} (${other})`,
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
);
