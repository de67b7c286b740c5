/**
 * Dependencies point one way (docs/architecture.md): no two folders import each other, the
 * platform floor imports no area, only the entry points (src/main.ts, src/cli/) import the
 * composition root, only the app builds areas, and service files do not query the store. The same check by hand:
 *   npx depcruise src --config .dependency-cruiser.cjs
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPOSITORY, violationsIn } from './support/depcruise.js';

it('src/ follows every import rule', async () => {
  expect(await violationsIn(REPOSITORY)).toEqual([]);
});

it('each rule catches what it forbids', async () => {
  const root = mkdtempSync(path.join(tmpdir(), 'depcruise-rules-'));
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  };
  try {
    write('tsconfig.json', JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }));
    write('package.json', JSON.stringify({ type: 'module' }));
    write('src/platform/metrics/metrics.ts', "import { gauge } from '../../realtime/realtime-metrics.js';\nexport const metrics = gauge;\n");
    write('src/realtime/realtime-metrics.ts', "import type { Store } from '../platform/store/document-store.js';\nexport const gauge = 1;\nexport type S = Store;\n");
    write('src/platform/store/document-store.ts', 'export interface Store { x: number }\n');
    write('src/contacts/contacts-service.ts', "import type { Store } from '../platform/store/document-store.js';\nexport type S = Store;\n");
    write('src/messaging/messages.ts', "import { createContactsArea } from '../contacts/contacts-area.js';\nimport { app } from '../app/start-app.js';\nexport const m = [createContactsArea, app];\n");
    write('src/contacts/contacts-area.ts', "import { m } from '../messaging/messages.js';\nexport const createContactsArea = () => m;\n");
    write('src/app/start-app.ts', 'export const app = 1;\n');
    const rules = new Set((await violationsIn(root)).map((violation) => violation.rule));
    expect([...rules].sort()).toEqual(
      ['area-factories-are-called-by-the-app', 'no-folder-cycles', 'no-module-cycles', 'only-the-entry-point-imports-the-app', 'platform-knows-no-area', 'services-are-adapters'].sort(),
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
