/**
 * Dependencies point one way (docs/architecture.md, "Wiring"; the folders: architecture.json): no
 * two folders import each other, a floor imports only what architecture.json lets it (platform
 * and events no area), an area imports areas and its floors, only the entry points (src/main.ts,
 * src/cli/) import the composition root, only the app builds areas, and service files do not
 * query the store. The same check by hand:
 *   npx depcruise src --config .dependency-cruiser.cjs
 * except no-top-folder-cycles (between the folders directly under src/), which
 * support/depcruise.ts computes from dependency-cruiser's graph.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPOSITORY, violationsIn } from './support/depcruise.js';
import { pascal } from './support/layout.js';

it('src/ follows every import rule', async () => {
  expect(await violationsIn(REPOSITORY)).toEqual([]);
});

// Each rule is broken from `area` (and towards it) in a tree of its own; `widgets` is a folder
// no list names, so it is an area only because it is not a floor.
describe.each([
  ['keys', 'relay'],
  ['relay', 'keys'],
  ['widgets', 'keys'],
  ['contacts', 'messaging'],
])('a break in %s (with %s) is reported', (area, other) => {
  it('by each rule', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'depcruise-rules-'));
    const write = (file: string, text: string) => {
      mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      writeFileSync(path.join(root, file), text);
    };
    try {
      write(
        'tsconfig.json',
        JSON.stringify({
          compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true },
        }),
      );
      write('package.json', JSON.stringify({ type: 'module' }));
      write('src/platform/store/document-store.ts', 'export interface Store { x: number }\n');
      write('src/app/start-app.ts', 'export const app = 1;\n');
      write('src/gateway/rest-gateway.ts', 'export const gateway = 1;\n');
      write(
        `src/${other}/${other}-area.ts`,
        `export const create${pascal(other)}Area = () => 1;\n`,
      );
      write(`src/${area}/${area}-area.ts`, `export const create${pascal(area)}Area = () => 1;\n`);
      // an area building another area
      write(
        `src/${area}/builds.ts`,
        `import { create${pascal(other)}Area } from '../${other}/${other}-area.js';\nexport const built = create${pascal(other)}Area();\n`,
      );
      // services querying the store: a *-service.ts, and a handler under the area's service/ folder
      write(
        `src/${area}/${area}-service.ts`,
        "import type { Store } from '../platform/store/document-store.js';\nexport type S = Store;\n",
      );
      write(
        `src/${area}/service/send.ts`,
        "import type { Store } from '../../platform/store/document-store.js';\nexport type S = Store;\n",
      );
      // floors that know an area, platform another floor
      write(
        'src/platform/metrics/metrics.ts',
        `import { gauge } from '../../${area}/${area}-metrics.js';\nimport { bus } from '../../events/bus.js';\nexport const metrics = [gauge, bus];\n`,
      );
      write(`src/${area}/${area}-metrics.ts`, 'export const gauge = 1;\n');
      write(
        'src/events/bus.ts',
        `import { gauge } from '../${area}/${area}-metrics.js';\nexport const bus = gauge;\n`,
      );
      // an area importing the app and a transport
      write(
        `src/${area}/wiring.ts`,
        "import { app } from '../app/start-app.js';\nimport { gateway } from '../gateway/rest-gateway.js';\nexport const w = [app, gateway];\n",
      );
      // a cycle between the two areas
      write(
        `src/${area}/one.ts`,
        `import { two } from '../${other}/two.js';\nexport const one = () => two;\n`,
      );
      write(
        `src/${other}/two.ts`,
        `import { one } from '../${area}/one.js';\nexport const two = () => one;\n`,
      );

      const violations = (await violationsIn(root)).map(
        ({ rule, from, to }) => `${rule}: ${from} → ${to}`,
      );
      const expected = [
        `area-factories-are-called-by-the-app: src/${area}/builds.ts → src/${other}/${other}-area.ts`,
        `no-area-imports-another-areas-factory: src/${area}/builds.ts → src/${other}/${other}-area.ts`,
        `services-are-adapters: src/${area}/${area}-service.ts → src/platform/store/document-store.ts`,
        `services-are-adapters: src/${area}/service/send.ts → src/platform/store/document-store.ts`,
        `platform-knows-no-area: src/platform/metrics/metrics.ts → src/${area}/${area}-metrics.ts`,
        'platform-knows-no-area: src/platform/metrics/metrics.ts → src/events/bus.ts',
        `events-knows-no-area: src/events/bus.ts → src/${area}/${area}-metrics.ts`,
        `only-the-entry-point-imports-the-app: src/${area}/wiring.ts → src/app/start-app.ts`,
        `areas-import-only-areas-and-their-floors: src/${area}/wiring.ts → src/app/start-app.ts`,
        `areas-import-only-areas-and-their-floors: src/${area}/wiring.ts → src/gateway/rest-gateway.ts`,
        `no-folder-cycles: src/${area} → src/${other}`,
        `no-top-folder-cycles: src/${area} → src/${other}`,
        `no-top-folder-cycles: src/${other} → src/${area}`,
      ];
      for (const violation of expected) expect(violations).toContain(violation);
      // a cycle is reported once, from whichever of its modules depcruise reached first
      expect(violations).toContainEqual(
        expect.stringMatching(
          new RegExp(
            `^no-module-cycles: src/(${area}/one|${other}/two)\\.ts → src/(${other}/two|${area}/one)\\.ts$`,
          ),
        ),
      );
      const rules = (list: string[]) =>
        [...new Set(list.map((violation) => violation.slice(0, violation.indexOf(':'))))].sort();
      expect(rules(violations)).toEqual(rules([...expected, 'no-module-cycles: (either way)']));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

it('the other floors, and a one-service area’s factory, are held to architecture.json', async () => {
  const root = mkdtempSync(path.join(tmpdir(), 'depcruise-floors-'));
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  };
  try {
    write(
      'tsconfig.json',
      JSON.stringify({
        compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true },
      }),
    );
    write('package.json', JSON.stringify({ type: 'module' }));
    write('src/app/start-app.ts', 'export const app = 1;\n');
    write('src/admin/admin-service.ts', 'export const createAdminService = () => 1;\n');
    write(
      'src/keys/keys-rules.ts',
      "import { createAdminService } from '../admin/admin-service.js';\nexport const rules = createAdminService;\n",
    );
    write(
      'src/server/http-server.ts',
      "import { routes } from '../gateway/routes.js';\nexport const server = routes;\n",
    );
    write(
      'src/gateway/routes.ts',
      "import { rules } from '../keys/keys-rules.js';\nexport const routes = rules;\n",
    );
    // ops and cli may import areas; ops is no entry point
    write(
      'src/ops/ops-routes.ts',
      "import { rules } from '../keys/keys-rules.js';\nimport { app } from '../app/start-app.js';\nexport const ops = [rules, app];\n",
    );
    write(
      'src/cli/admin.ts',
      "import { rules } from '../keys/keys-rules.js';\nimport { app } from '../app/start-app.js';\nexport const cli = [rules, app];\n",
    );
    const violations = (await violationsIn(root)).map(
      ({ rule, from, to }) => `${rule}: ${from} → ${to}`,
    );
    expect(violations.sort()).toEqual(
      [
        'area-factories-are-called-by-the-app: src/keys/keys-rules.ts → src/admin/admin-service.ts',
        'no-area-imports-another-areas-factory: src/keys/keys-rules.ts → src/admin/admin-service.ts',
        'server-knows-no-area: src/server/http-server.ts → src/gateway/routes.ts',
        'gateway-knows-no-area: src/gateway/routes.ts → src/keys/keys-rules.ts',
        'only-the-entry-point-imports-the-app: src/ops/ops-routes.ts → src/app/start-app.ts',
        'ops-imports-only-areas-and-its-floors: src/ops/ops-routes.ts → src/app/start-app.ts',
      ].sort(),
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
