/**
 * Runs one hook of an Envoy Lua filter (envoy_on_request or envoy_on_response) under LuaJIT, the
 * Lua Envoy embeds, against the stub of Envoy's stream handle in envoy-stream.lua. Inputs go to
 * LuaJIT as a Lua chunk (every string byte-escaped), the result comes back as JSON.
 *
 * LuaJIT is Debian's `luajit` package: `.ci/run` installs it. Without it the tests fail in CI
 * (or with REQUIRE_LUAJIT set) and are skipped with a printed notice elsewhere.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Json } from '../../../support/json.js';

const STUB = fileURLToPath(new URL('./envoy-stream.lua', import.meta.url));
const LUAJIT = 'luajit';
const luaJitRequired = process.env.CI !== undefined || process.env.REQUIRE_LUAJIT !== undefined;

/** Header maps as Envoy keeps them: ordered, lower-case keys, a key may repeat. */
export type HeaderList = [string, string][];

/** A filter metadata Struct: filter name → its keys. */
export type FilterMetadata = Record<string, Record<string, unknown>>;

export interface StreamState {
  readonly headers: HeaderList;
  readonly body?: string;
  readonly trailers?: HeaderList;
  readonly dynamicMetadata: FilterMetadata;
}

export interface HookRun {
  /** The Lua source of the filter and its config name (route metadata is looked up under it). */
  readonly source: string;
  readonly filterName: string;
  readonly phase: 'request' | 'response';
  readonly routeMetadata: FilterMetadata;
  readonly stream: StreamState;
}

export interface HookResult extends StreamState {
  /** Set when the script answered the request itself with respond(). */
  readonly responded?: { headers: HeaderList; body?: string };
}

/** Registers the tests `define` declares if LuaJIT runs; otherwise fails (CI) or skips. */
export function withLuaJit(define: () => void): void {
  const probe = spawnSync(LUAJIT, ['-v'], { encoding: 'utf8' });
  if (probe.status === 0) {
    define();
    return;
  }
  if (luaJitRequired) {
    test('LuaJIT runs', () => {
      throw new Error(
        `'${LUAJIT} -v' failed (${probe.error?.message ?? probe.stderr}): install Debian's luajit (CI requires it)`,
      );
    });
    return;
  }
  console.warn(
    `SKIP Envoy Lua filter tests: '${LUAJIT}' is not installed (apt-get install luajit; set REQUIRE_LUAJIT to require it)`,
  );
  test.skip('Envoy Lua filters under LuaJIT', () => undefined);
}

export function runLuaHook(run: HookRun): HookResult {
  const dir = mkdtempSync(join(tmpdir(), 'envoy-lua-'));
  try {
    const source = join(dir, 'filter.lua');
    const input = join(dir, 'input.lua');
    writeFileSync(source, run.source);
    writeFileSync(input, `return ${luaLiteral(inputTable(run))}\n`);
    const result = spawnSync(LUAJIT, [STUB, source, input], { encoding: 'utf8' });
    if (result.status !== 0)
      throw new Error(
        `${run.filterName} ${run.phase} hook failed under LuaJIT: ${result.stderr || result.error?.message}`,
      );
    return outputOf(JSON.parse(result.stdout));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function inputTable(run: HookRun): unknown {
  return {
    filter_name: run.filterName,
    phase: run.phase,
    headers: run.stream.headers,
    body: run.stream.body,
    trailers: run.stream.trailers,
    route_metadata: run.routeMetadata,
    dynamic_metadata: run.stream.dynamicMetadata,
  };
}

/** Lua's JSON of an empty table is `{}`: lists come back as objects when empty. */
const headerList = (value: unknown): HeaderList =>
  Array.isArray(value) ? (value as HeaderList) : [];

function outputOf(output: Record<string, Json>): HookResult {
  return {
    headers: headerList(output.headers),
    ...(output.body === undefined ? {} : { body: output.body as string }),
    ...(output.trailers === undefined ? {} : { trailers: headerList(output.trailers) }),
    dynamicMetadata: output.dynamic_metadata ?? {},
    ...(output.responded === undefined
      ? {}
      : {
          responded: { headers: headerList(output.responded.headers), body: output.responded.body },
        }),
  };
}

/** A Lua constructor for plain data; strings are escaped byte by byte, so any content is safe. */
function luaLiteral(value: unknown): string {
  if (value === undefined || value === null) return 'nil';
  if (typeof value === 'string')
    return `"${[...Buffer.from(value, 'utf8')].map((byte) => `\\${byte}`).join('')}"`;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `{${value.map(luaLiteral).join(',')}}`;
  const members = Object.entries(value as Record<string, unknown>).filter(
    ([, item]) => item !== undefined,
  );
  return `{${members.map(([key, item]) => `[${luaLiteral(key)}]=${luaLiteral(item)}`).join(',')}}`;
}
