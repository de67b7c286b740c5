/**
 * The Envoy bootstrap, as the chart renders it, parses into Envoy's own bootstrap schema (see
 * support/envoy-schema.ts), and the checker itself refuses what Envoy would refuse.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { parseBootstrap } from './support/envoy-schema.js';
import { envoyConfigMap, httpConnectionManager, httpFilter } from './support/envoy-config.js';
import { PRODUCTION_VALUES, REPO, findManifest, renderManifests } from './support/helm.js';
import type { Json } from '../support/json.js';

describe.each([
  ['default values', [] as string[]],
  ['production-like values', [PRODUCTION_VALUES]],
])('Envoy bootstrap rendered with %s', (_, valuesFiles) => {
  const manifests = renderManifests(valuesFiles);
  const config = envoyConfigMap(manifests);

  test('parses into envoy.config.bootstrap.v3.Bootstrap, every @type resolved', () => {
    expect(() => parseBootstrap(config.bootstrapText)).not.toThrow();
  });

  test('ships the Lua filters and the descriptor set of envoy/ unchanged, where the bootstrap reads them', () => {
    const envoy = findManifest(manifests, 'Deployment', '-envoy') as unknown as {
      spec: {
        template: {
          spec: { containers: { volumeMounts: { name: string; mountPath: string }[] }[] };
        };
      };
    };
    expect(envoy.spec.template.spec.containers[0]?.volumeMounts).toContainEqual({
      name: 'config',
      mountPath: '/etc/envoy',
      readOnly: true,
    });
    for (const file of ['api-versioning.lua', 'error-envelope.lua']) {
      expect(config.data[file]?.trimEnd()).toBe(
        readFileSync(join(REPO, 'envoy', file), 'utf8').trimEnd(),
      );
      expect(config.bootstrapText).toContain(`filename: /etc/envoy/${file}`);
    }
    expect(
      config.binaryData['api-descriptor.binpb']?.equals(
        readFileSync(join(REPO, 'envoy', 'api-descriptor.binpb')),
      ),
    ).toBe(true);
    expect(
      httpFilter(config.bootstrap, 'envoy.filters.http.grpc_json_transcoder').proto_descriptor,
    ).toBe('/etc/envoy/api-descriptor.binpb');
  });

  test('the transcoder prints the spec JSON and ignores unknown query parameters', () => {
    const transcoder = httpFilter(config.bootstrap, 'envoy.filters.http.grpc_json_transcoder');
    expect(transcoder.print_options).toEqual({
      always_print_primitive_fields: true,
      always_print_enums_as_ints: false,
      preserve_proto_field_names: false,
    });
    expect(transcoder.ignore_unknown_query_parameters).toBe(true);
    expect(transcoder.request_validation_options.reject_unknown_query_parameters).toBe(false);
  });

  test('the edge passes the client address on as the service expects it', () => {
    const manager = httpConnectionManager(config.bootstrap);
    // Envoy appends the peer it sees, the rightmost entry the api pods' TRUSTED_PROXIES rule reads.
    expect(manager.use_remote_address).toBe(true);
    const configMap = findManifest(manifests, 'ConfigMap', '-config') as unknown as {
      data: Record<string, string>;
    };
    expect(configMap.data.TRUSTED_PROXIES).toMatch(/\/\d+/);
  });

  test("Envoy's own 404, 413 and 429 replies are the spec's envelope, and 429 carries the spec's headers", () => {
    const mappers = httpConnectionManager(config.bootstrap).local_reply_config.mappers as {
      filter: { status_code_filter: { comparison: { value: { default_value: number } } } };
      body_format_override: { json_format: Record<string, unknown> };
    }[];
    const byStatus = new Map(
      mappers.map((m) => [
        m.filter.status_code_filter.comparison.value.default_value,
        m.body_format_override.json_format,
      ]),
    );
    for (const status of [400, 404, 413, 429, 503]) {
      expect(byStatus.get(status)).toEqual({
        success: false,
        error: expect.any(String),
        code: expect.stringMatching(/^[A-Z_]+$/),
      });
    }
    const headers = (
      httpFilter(config.bootstrap, 'envoy.filters.http.local_ratelimit')
        .response_headers_to_add as { header: { key: string } }[]
    ).map((h) => h.header.key);
    expect(headers.sort()).toEqual(['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Window']);
  });
});

describe('the schema check refuses what Envoy refuses', () => {
  const bootstrapText = envoyConfigMap(renderManifests([])).bootstrapText;
  // Each case breaks one thing in a copy of the rendered bootstrap.
  const broken = (mutate: (manager: Record<string, Json>) => void): string => {
    const copy = parse(bootstrapText) as Record<string, unknown>;
    mutate(httpConnectionManager(copy));
    return stringify(copy);
  };

  test.each([
    ['an unknown key', (m: Record<string, Json>) => (m.use_remote_adress = true)],
    [
      'a malformed duration',
      (m: Record<string, Json>) =>
        (m.route_config.virtual_hosts[0].routes[0].route.timeout = '5 seconds'),
    ],
    ['an unknown enum value', (m: Record<string, Json>) => (m.codec_type = 'HTTP9')],
    [
      'an unknown @type',
      (m: Record<string, Json>) =>
        (m.http_filters[0].typed_config['@type'] =
          'type.googleapis.com/envoy.extensions.filters.http.lua.v3.Luaa'),
    ],
    ['a field of the wrong type', (m: Record<string, Json>) => (m.xff_num_trusted_hops = 'one')],
  ])('%s', (_, mutate) => {
    expect(() => parseBootstrap(broken(mutate))).toThrow();
  });
});
