/**
 * Envoy serves exactly the REST routes the in-process gateway serves. Both sides are derived
 * from descriptors built from proto/: the gateway's from the generated code (buildRouteTable),
 * Envoy's from the descriptor set and service list its transcoder is given in the rendered
 * ConfigMap, plus the unversioned aliases its route table and api-versioning metadata produce.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileRegistry, fromBinary, getOption, hasOption } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import type { GenExtension } from '@bufbuild/protobuf/codegenv2';
import type { MethodOptions } from '@bufbuild/protobuf/wkt';
import type { HttpRule } from '../../src/gen/google/api/http_pb.js';
import { buildRouteTable } from '../../src/gateway/routing/route-table.js';
import { apiServices } from '../../src/platform/api/api-services.js';
import { CURRENT, LEGACY } from '../../src/platform/api/api-versions.js';
import { envoyConfigMap, httpFilter, routeFor } from './support/envoy-config.js';
import { REPO, renderManifests } from './support/helm.js';

const config = envoyConfigMap(renderManifests([]));

/** `METHOD template` of every google.api.http binding of the services the transcoder is told to serve. */
function transcodedBindings(): string[] {
  const transcoder = httpFilter(config.bootstrap, 'envoy.filters.http.grpc_json_transcoder');
  const descriptorFile = (transcoder.proto_descriptor as string).replace('/etc/envoy/', '');
  const registry = createFileRegistry(
    fromBinary(FileDescriptorSetSchema, config.binaryData[descriptorFile] as Buffer),
  );
  const http = registry.getExtension('google.api.http') as
    GenExtension<MethodOptions, HttpRule> | undefined;
  if (!http) throw new Error('the descriptor set lacks google.api.http');
  return (transcoder.services as string[]).flatMap((name) => {
    const service = registry.getService(name);
    if (!service) throw new Error(`the transcoder names ${name}, which the descriptor set lacks`);
    return service.methods
      .filter((method) => hasOption(method, http))
      .flatMap((method) => {
        const rule = getOption(method, http);
        return [rule, ...rule.additionalBindings].map(({ pattern }) =>
          pattern.case === 'custom'
            ? `${pattern.value.kind.toUpperCase()} ${pattern.value.path}`
            : `${pattern.case?.toUpperCase()} ${pattern.value}`,
        );
      });
  });
}

/** A concrete path for a template, to run through Envoy's route table. */
const samplePath = (template: string) => template.replace(/\{[^}]*\}/g, 'sample');

/** Whether Envoy hands a path to the api pods' in-process gateway untouched (media bytes). */
const passedToGateway = (path: string) => {
  const route = routeFor(config.bootstrap, path);
  return (
    route?.route?.cluster === 'api_http' &&
    route.typed_per_filter_config?.['envoy.filters.http.grpc_json_transcoder']?.disabled === true
  );
};

/**
 * What Envoy serves: each binding, and its unversioned alias when the api route's metadata maps
 * one; a binding whose paths Envoy passes to the in-process gateway is served there, in both
 * generations when both paths are passed.
 */
function envoyServedRoutes(): string[] {
  return transcodedBindings().flatMap((route) => {
    const [method, template] = route.split(' ') as [string, string];
    if (passedToGateway(samplePath(template))) {
      const alias = LEGACY.prefix + template.slice(CURRENT.prefix.length);
      return passedToGateway(samplePath(alias)) ? [route, `${method} ${alias}`] : [route];
    }
    const served = [route];
    const metadata = routeFor(config.bootstrap, samplePath(template))?.metadata?.filter_metadata?.[
      'messaging.api_versioning'
    ];
    if (metadata && template.startsWith(`${metadata.current_prefix}/`)) {
      served.push(
        `${method} ${metadata.legacy_prefix}${template.slice(String(metadata.current_prefix).length)}`,
      );
    }
    return served;
  });
}

test('Envoy transcodes exactly the routes of the in-process gateway', () => {
  const gateway = buildRouteTable(apiServices).map(
    (route) => `${route.httpMethod} ${route.template}`,
  );
  expect(gateway.length).toBeGreaterThan(100);
  expect(envoyServedRoutes().sort()).toEqual(gateway.sort());
});

/** The RPCs whose bytes Envoy passes to the in-process gateway: media it must not buffer, sticker images for their 304. */
const MEDIA_BYTES = new Set(['UploadMedia', 'GetMedia', 'GetAvatar', 'GetStickerImage']);

test('every API path reaches the transcoder and the api pods, with the versioning of api-versions.ts', () => {
  for (const route of buildRouteTable(apiServices)) {
    const envoyRoute = routeFor(config.bootstrap, samplePath(route.template));
    if (MEDIA_BYTES.has(route.method.name)) {
      expect({
        template: route.template,
        passed: passedToGateway(samplePath(route.template)),
      }).toEqual({ template: route.template, passed: true });
      continue;
    }
    expect({ template: route.template, cluster: envoyRoute?.route?.cluster }).toEqual({
      template: route.template,
      cluster: 'api_grpc',
    });
    expect(
      envoyRoute?.typed_per_filter_config?.['envoy.filters.http.grpc_json_transcoder']?.disabled,
    ).not.toBe(true);
    expect(envoyRoute?.metadata?.filter_metadata?.['messaging.api_versioning']).toMatchObject({
      current_prefix: CURRENT.prefix,
      current_version: CURRENT.version,
      current_stability: CURRENT.stability,
      legacy_prefix: LEGACY.prefix,
      legacy_stability: LEGACY.stability,
    });
  }
});

test('operational paths go to the api pods over HTTP, /ws to the ws pods as a WebSocket without timeout', () => {
  for (const path of [
    '/health',
    '/health/ready',
    '/health/live',
    '/metrics',
    '/swagger',
    '/swagger/index.html',
  ]) {
    const route = routeFor(config.bootstrap, path);
    expect({ path, cluster: route?.route?.cluster }).toEqual({ path, cluster: 'api_http' });
    expect(
      route?.typed_per_filter_config?.['envoy.filters.http.grpc_json_transcoder']?.disabled,
    ).toBe(true);
  }
  const ws = routeFor(config.bootstrap, '/ws');
  expect(ws?.route).toMatchObject({
    cluster: 'ws_http',
    timeout: '0s',
    idle_timeout: '0s',
    upgrade_configs: [{ upgrade_type: 'websocket' }],
  });
});

test('the committed Envoy descriptor set and service list are what scripts/envoy-descriptor.sh makes from proto/', () => {
  const out = mkdtempSync(join(tmpdir(), 'envoy-descriptor-'));
  execFileSync('bash', [join(REPO, 'scripts', 'envoy-descriptor.sh'), out], { stdio: 'pipe' });
  for (const file of ['api-descriptor.binpb', 'api-services.txt']) {
    expect({
      file,
      current: readFileSync(join(out, file)).equals(readFileSync(join(REPO, 'envoy', file))),
    }).toEqual({ file, current: true });
  }
});
