/**
 * Envoy's own configuration schema, for checking a bootstrap offline: a descriptor set built
 * with buf from the Envoy API protos that the npm package @grpc/grpc-js-xds ships (deps/), and
 * protobuf-es's JSON parser, which refuses unknown fields, malformed durations, unknown enum
 * values and `@type`s that are not registered. Only the v3 config and extension protos whose
 * imports are all shipped are built (the package lacks the OpenCensus/OpenTelemetry protos).
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { createFileRegistry, fromBinary, fromJson } from '@bufbuild/protobuf';
import type { DescMessage, JsonValue, Message, Registry } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { parse } from 'yaml';

const require = createRequire(import.meta.url);
const xdsRoot = dirname(require.resolve('@grpc/grpc-js-xds/package.json'));
const xdsVersion = JSON.parse(readFileSync(join(xdsRoot, 'package.json'), 'utf8'))
  .version as string;
const MODULES = ['envoy-api', 'xds', 'googleapis'];

export interface EnvoySchema {
  readonly registry: Registry;
  readonly bootstrap: DescMessage;
}

let cached: EnvoySchema | undefined;

export function envoySchema(): EnvoySchema {
  if (cached) return cached;
  const workspace = join(tmpdir(), `envoy-schema-${xdsVersion}`);
  const output = join(workspace, 'envoy.binpb');
  if (!existsSync(output)) buildSchema(workspace, output);
  const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, readFileSync(output)));
  const bootstrap = registry.getMessage('envoy.config.bootstrap.v3.Bootstrap');
  if (!bootstrap)
    throw new Error('envoy.config.bootstrap.v3.Bootstrap is missing from the Envoy schema');
  cached = { registry, bootstrap };
  return cached;
}

/** Parses a bootstrap (YAML or JSON text) the way Envoy's loader reads it; throws on anything it would refuse. */
export function parseBootstrap(text: string): Message {
  const { registry, bootstrap } = envoySchema();
  return fromJson(bootstrap, parse(text) as JsonValue, { registry });
}

function buildSchema(workspace: string, output: string): void {
  mkdirSync(join(workspace, 'pgv', 'validate'), { recursive: true });
  for (const name of MODULES) {
    if (!existsSync(join(workspace, name)))
      symlinkSync(join(xdsRoot, 'deps', name), join(workspace, name));
  }
  writeFileSync(join(workspace, 'pgv', 'validate', 'validate.proto'), currentValidateProto());
  writeFileSync(
    join(workspace, 'buf.yaml'),
    ['version: v2', 'modules:', ...[...MODULES, 'pgv'].map((path) => `  - path: ${path}`), ''].join(
      '\n',
    ),
  );
  const paths = buildableEnvoyProtos(workspace).flatMap((file) => ['--path', file]);
  const buf = join(dirname(require.resolve('@bufbuild/buf/package.json')), 'bin', 'buf');
  execFileSync(buf, ['build', '--exclude-source-info', '-o', output, ...paths], {
    cwd: workspace,
    stdio: 'pipe',
  });
}

/**
 * The package's protoc-gen-validate validate.proto predates `ignore_empty`, which the Envoy
 * protos use in their (ignored here) validation options: the field is added to each rules
 * message under protoc-gen-validate's own field numbers.
 */
function currentValidateProto(): string {
  const source = readFileSync(
    join(xdsRoot, 'deps', 'protoc-gen-validate', 'validate', 'validate.proto'),
    'utf8',
  );
  const numbers: Record<string, number> = { String: 26, Bytes: 14, Repeated: 5, Map: 6 };
  for (const numeric of [
    'Float',
    'Double',
    'Int32',
    'Int64',
    'UInt32',
    'UInt64',
    'SInt32',
    'SInt64',
    'Fixed32',
    'Fixed64',
    'SFixed32',
    'SFixed64',
  ]) {
    numbers[numeric] = 8;
  }
  return source.replace(/^message (\w+)Rules \{$/gm, (line, kind: string) =>
    numbers[kind] === undefined
      ? line
      : `${line}\n  optional bool ignore_empty = ${numbers[kind]};`,
  );
}

/** v3 config and extension protos (module-relative paths) whose imports all exist, transitively. */
function buildableEnvoyProtos(workspace: string): string[] {
  const roots = [...MODULES.map((name) => join(workspace, name)), join(workspace, 'pgv')];
  const buildable = new Map<string, boolean>();
  const check = (importPath: string): boolean => {
    if (importPath.startsWith('google/protobuf/')) return true;
    const known = buildable.get(importPath);
    if (known !== undefined) return known;
    buildable.set(importPath, false); // cycles: assume the worst until proven
    const root = roots.find((dir) => existsSync(join(dir, importPath)));
    const ok = root !== undefined && importsOf(join(root, importPath)).every(check);
    buildable.set(importPath, ok);
    return ok;
  };
  const envoyApi = join(workspace, 'envoy-api');
  return ['envoy/config', 'envoy/extensions']
    .flatMap((dir) => protoFiles(join(envoyApi, dir)))
    .map((file) => relative(envoyApi, file))
    .filter((file) => file.includes('/v3/') && check(file))
    .map((file) => join('envoy-api', file));
}

function importsOf(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(/^import\s+(?:public\s+)?"([^"]+)";/gm)].map(
    (match) => match[1] as string,
  );
}

function protoFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? protoFiles(join(dir, entry.name))
      : entry.name.endsWith('.proto')
        ? [join(dir, entry.name)]
        : [],
  );
}
