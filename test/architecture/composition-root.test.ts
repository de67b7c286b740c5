/**
 * The composition root (src/app) reads top to bottom (docs/architecture.md, "Wiring"):
 * - no function in it spans more than MAX_LINES lines: the wiring is split into named steps;
 * - it patches nothing after building it: every area gets what it uses when it is built. No
 *   `LateBound`, no `.bind(…)`, `.addListener(…)` or `.onEnded(…)` (or other listener
 *   registration) on a part an area returned, and no closure that uses a constant declared
 *   further down the same block (a forward reference: the part it names is built later).
 * The checks read each file's syntax tree (TypeScript's parser); each has a self-test on a
 * synthetic source in a temporary directory.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MAX_LINES, latePatches, longFunctions } from './support/composition-root.js';
import { REPOSITORY } from './support/depcruise.js';

it(`no function in src/app spans more than ${MAX_LINES} lines`, () => {
  expect(longFunctions(REPOSITORY, MAX_LINES)).toEqual([]);
});

it('src/app builds every part complete: no late binding, no listener added afterwards, no forward reference', () => {
  expect(latePatches(REPOSITORY)).toEqual([]);
});

describe('the checks find what they look for', () => {
  let root: string;
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  };
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'composition-root-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('a late patch and a forward reference', () => {
    write(
      'src/app/api-areas.ts',
      [
        "import { LateBound } from '../media/downloads/late-bound.js';",
        'export async function build(ports: Ports) {',
        '  const media = await createMediaArea({ readers: new LateBound() });',
        '  const channels = await createChannelsArea({ media: media.held });',
        '  media.channelReaders.bind(channels.access);',
        '  contacts.blocks.addListener(location.blockListener);',
        '  const recovery = createRecoveryArea({ moves: { move: (from, to) => accountLife.walker.walk(from, to) } });',
        '  const accountLife = createAccountLifecycleArea({ owners: [recovery.accountData] });',
        '  identity.sessions.onEnded(push.sessionEnds);',
        '  return { accountLife, recovery };',
        '}',
        '',
      ].join('\n'),
    );
    expect(latePatches(root)).toEqual([
      'src/app/api-areas.ts:1 LateBound',
      'src/app/api-areas.ts:3 LateBound',
      'src/app/api-areas.ts:5 media.channelReaders.bind(…)',
      'src/app/api-areas.ts:6 contacts.blocks.addListener(…)',
      'src/app/api-areas.ts:7 forward reference to accountLife',
      'src/app/api-areas.ts:9 identity.sessions.onEnded(…)',
    ]);
  });

  it('a closure over a constant declared above it is no forward reference', () => {
    write(
      'src/app/ok.ts',
      'export function build() {\n  const walks = { find: () => 1 };\n  const moves = { isMoving: () => walks.find() };\n  return { moves, walks };\n}\n',
    );
    expect(latePatches(root)).toEqual([]);
  });

  it('a long function, an arrow function and a method', () => {
    const body = Array.from({ length: 80 }, (_, index) => `  const v${index} = ${index};`).join(
      '\n',
    );
    write(
      'src/app/long.ts',
      `export function long() {\n${body}\n}\nexport const arrow = () => {\n${body}\n};\nexport class Holder {\n  method() {\n${body}\n  }\n}\nexport function short() {\n  return 1;\n}\n`,
    );
    expect(longFunctions(root, MAX_LINES)).toEqual([
      'src/app/long.ts:1 long: 82 lines',
      'src/app/long.ts:83 arrow: 82 lines',
      'src/app/long.ts:166 method: 82 lines',
    ]);
  });
});
