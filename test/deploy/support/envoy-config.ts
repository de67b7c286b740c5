/**
 * The Envoy configuration as the chart deploys it: the bootstrap, Lua files and descriptor set
 * from the rendered Envoy ConfigMap, and small readers for the parts the tests look at.
 */
import { parse } from 'yaml';
import { findManifest } from './helm.js';
import type { Manifest } from './helm.js';
import type { Json } from '../../support/json.js';

export interface EnvoyConfigMap {
  readonly bootstrapText: string;
  /** The parsed bootstrap, as plain JSON. */
  readonly bootstrap: Record<string, unknown>;
  readonly data: Readonly<Record<string, string>>;
  readonly binaryData: Readonly<Record<string, Buffer>>;
}

export function envoyConfigMap(manifests: readonly Manifest[]): EnvoyConfigMap {
  const configMap = findManifest(manifests, 'ConfigMap', '-envoy') as unknown as {
    data: Record<string, string>;
    binaryData: Record<string, string>;
  };
  const bootstrapText = configMap.data['envoy.yaml'] ?? '';
  return {
    bootstrapText,
    bootstrap: parse(bootstrapText) as Record<string, unknown>,
    data: configMap.data,
    binaryData: Object.fromEntries(
      Object.entries(configMap.binaryData).map(([key, value]) => [
        key,
        Buffer.from(value, 'base64'),
      ]),
    ),
  };
}

export interface EnvoyRoute {
  name: string;
  match: { path?: string; prefix?: string; safe_regex?: { regex: string } };
  route?: {
    cluster: string;
    timeout?: string;
    idle_timeout?: string;
    upgrade_configs?: { upgrade_type: string }[];
  };
  metadata?: { filter_metadata?: Record<string, Record<string, string>> };
  typed_per_filter_config?: Record<string, { disabled?: boolean }>;
}

// `any`: walking a large, loosely typed JSON document.
export function httpConnectionManager(bootstrap: Record<string, unknown>): Json {
  const listener = (bootstrap as Json).static_resources.listeners[0];
  return listener.filter_chains[0].filters.find(
    (f: Json) => f.name === 'envoy.filters.network.http_connection_manager',
  ).typed_config;
}

export function httpFilter(bootstrap: Record<string, unknown>, name: string): Json {
  return httpConnectionManager(bootstrap).http_filters.find((f: Json) => f.name === name)
    ?.typed_config;
}

export function routes(bootstrap: Record<string, unknown>): EnvoyRoute[] {
  return httpConnectionManager(bootstrap).route_config.virtual_hosts[0].routes;
}

/** The first route matching a path, as Envoy's route table picks it (exact path, regex or prefix). */
export function routeFor(bootstrap: Record<string, unknown>, path: string): EnvoyRoute | undefined {
  return routes(bootstrap).find(({ match }) => {
    if (match.path !== undefined) return match.path === path;
    // RE2 matches the whole path; these patterns are anchored and use no RE2-only syntax.
    if (match.safe_regex !== undefined) return new RegExp(match.safe_regex.regex).test(path);
    return path.startsWith(match.prefix ?? '\u0000');
  });
}
