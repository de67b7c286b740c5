/**
 * The Helm chart, rendered by the real helm binary with the default values and with
 * production-like ones: every manifest against the Kubernetes schema, every setting of the
 * service wired, the pod hardening and probes in place, and values.schema.json refusing bad values.
 */
import { allSettings } from '../../src/platform/config/settings.js';
import { findManifest, PRODUCTION_VALUES, renderChart, renderManifests } from './support/helm.js';
import type { Manifest } from './support/helm.js';
import { validateManifest } from './support/kubernetes-schema.js';

interface Container {
  name: string;
  env?: {
    name: string;
    value?: string;
    valueFrom?: { secretKeyRef?: { name: string; key: string } };
  }[];
  envFrom?: { configMapRef?: { name: string } }[];
  securityContext?: Record<string, unknown>;
  readinessProbe?: { httpGet?: { path: string } };
  livenessProbe?: { httpGet?: { path: string } };
  resources?: { requests?: unknown };
}
interface PodSpec {
  containers: Container[];
  securityContext?: Record<string, unknown>;
  terminationGracePeriodSeconds?: number;
}
const podSpec = (deployment: Manifest) =>
  (deployment as unknown as { spec: { template: { spec: PodSpec } } }).spec.template.spec;

const SETTINGS = allSettings.map((setting) => setting.env);

describe.each([
  ['default values', [] as string[]],
  ['production-like values', [PRODUCTION_VALUES]],
])('chart rendered with %s', (_, valuesFiles) => {
  const manifests = renderManifests(valuesFiles);

  test('every manifest is valid against the Kubernetes schema of its kind', () => {
    expect(manifests.length).toBeGreaterThan(10);
    for (const manifest of manifests) {
      expect(() => validateManifest(manifest)).not.toThrow();
    }
  });

  test.each(['api', 'ws'])('the %s Deployment receives every setting of the service', (role) => {
    const deployment = findManifest(manifests, 'Deployment', `-${role}`);
    const container = podSpec(deployment).containers[0] as Container;
    const configMapName = container.envFrom?.[0]?.configMapRef?.name ?? '';
    const configMap = findManifest(manifests, 'ConfigMap', configMapName) as unknown as {
      data: Record<string, string>;
    };
    const wired = new Set([
      ...Object.keys(configMap.data),
      ...(container.env ?? []).map((variable) => variable.name),
    ]);
    // ws pods have no store: they are not given its URL (and its credentials).
    const expected = role === 'ws' ? SETTINGS.filter((name) => name !== 'MONGODB_URL') : SETTINGS;
    expect(expected.filter((name) => !wired.has(name))).toEqual([]);
    expect([...wired].filter((name) => !expected.includes(name))).toEqual([]);
    expect(container.env?.find((variable) => variable.name === 'ROLE')?.value).toBe(role);
    // Secrets come from existing Secrets, never from the chart's own objects.
    for (const name of [
      'REDIS_URL',
      'JWT_SIGNING_KEY',
      ...(role === 'api' ? ['MONGODB_URL'] : []),
    ]) {
      expect(
        container.env?.find((variable) => variable.name === name)?.valueFrom?.secretKeyRef,
      ).toBeDefined();
    }
    expect(manifests.some((m) => m.kind === 'Secret')).toBe(false);
  });

  test.each(['api', 'ws', 'envoy'])('the %s pods are hardened, probed and sized', (name) => {
    const spec = podSpec(findManifest(manifests, 'Deployment', `-${name}`));
    const container = spec.containers[0] as Container;
    expect(spec.securityContext).toMatchObject({ runAsNonRoot: true });
    expect(container.securityContext).toMatchObject({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    expect(container.readinessProbe).toBeDefined();
    expect(container.livenessProbe).toBeDefined();
    expect(container.resources?.requests).toBeDefined();
  });

  test('the service probes are its health routes', () => {
    for (const role of ['api', 'ws']) {
      const container = podSpec(findManifest(manifests, 'Deployment', `-${role}`))
        .containers[0] as Container;
      expect(container.readinessProbe?.httpGet?.path).toBe('/health/ready');
      expect(container.livenessProbe?.httpGet?.path).toBe('/health/live');
    }
  });

  test('ws pods get longer than their drain time to stop, api pods longer than SHUTDOWN_TIMEOUT_MS', () => {
    const ws = podSpec(findManifest(manifests, 'Deployment', '-ws'));
    const wsDrainMs = Number(
      ws.containers[0]?.env?.find((variable) => variable.name === 'SHUTDOWN_TIMEOUT_MS')?.value,
    );
    expect(wsDrainMs).toBeGreaterThanOrEqual(60_000);
    expect((ws.terminationGracePeriodSeconds ?? 30) * 1000).toBeGreaterThan(wsDrainMs);
    const api = podSpec(findManifest(manifests, 'Deployment', '-api'));
    const configMap = findManifest(manifests, 'ConfigMap', '-config') as unknown as {
      data: Record<string, string>;
    };
    expect((api.terminationGracePeriodSeconds ?? 30) * 1000).toBeGreaterThan(
      Number(configMap.data.SHUTDOWN_TIMEOUT_MS),
    );
  });

  test('a headless Service lists the api pods for peer discovery and Envoy', () => {
    const peers = findManifest(manifests, 'Service', '-api-peers') as unknown as {
      metadata: { name: string };
      spec: {
        clusterIP: string;
        selector: Record<string, string>;
        ports: { name: string; port: number; targetPort: string }[];
      };
    };
    expect(peers.spec.clusterIP).toBe('None');
    expect(peers.spec.selector['app.kubernetes.io/component']).toBe('api');
    // The key directory's DHT nodes find each other through it, on the api pods' dht port.
    const dht = peers.spec.ports.find((port) => port.name === 'dht');
    expect(dht).toMatchObject({ targetPort: 'dht' });
    const api = podSpec(findManifest(manifests, 'Deployment', '-api'))
      .containers[0] as Container & { ports: { name: string; containerPort: number }[] };
    expect(api.ports.find((port) => port.name === 'dht')?.containerPort).toBe(dht?.port);
    const env = (name: string) => api.env?.find((variable) => variable.name === name)?.value;
    expect(env('KEYS_DHT_PORT')).toBe(String(dht?.port));
    expect(env('KEYS_DHT_PEERS')).toMatch(
      new RegExp(`^${peers.metadata.name}\\.[a-z0-9-]+\\.svc\\.cluster\\.local:${dht?.port}$`),
    );
  });

  test('NetworkPolicies: only Envoy (and scrapers) reach the pods, Envoy reaches only the pods', () => {
    const policies = manifests.filter((m) => m.kind === 'NetworkPolicy') as unknown as {
      metadata: { name: string };
      spec: {
        policyTypes: string[];
        ingress: { from?: { podSelector?: { matchLabels: Record<string, string> } }[] }[];
        egress: { to?: unknown[]; ports?: { port: number | string }[] }[];
      };
    }[];
    expect(policies.map((p) => p.metadata.name.replace(/^release-messaging-/, '')).sort()).toEqual([
      'api',
      'envoy',
      'index-job',
      'ws',
    ]);
    for (const policy of policies) expect(policy.spec.policyTypes).toEqual(['Ingress', 'Egress']);
    const ws = policies.find((p) => p.metadata.name.endsWith('-ws'));
    expect(
      ws?.spec.ingress[0]?.from?.[0]?.podSelector?.matchLabels['app.kubernetes.io/component'],
    ).toBe('envoy');
    const envoyEgressPorts = policies
      .find((p) => p.metadata.name.endsWith('-envoy'))
      ?.spec.egress.flatMap((rule) => rule.ports ?? [])
      .map((p) => p.port);
    expect(envoyEgressPorts).not.toContain(27017);
    expect(envoyEgressPorts).not.toContain(6379);
  });

  test('a pre-install/pre-upgrade Job builds the indexes before pods roll, reaching only MongoDB', () => {
    const job = findManifest(manifests, 'Job', '-index-job') as unknown as {
      metadata: { annotations: Record<string, string> };
      spec: { backoffLimit: number; template: { spec: PodSpec & { restartPolicy: string } } };
    };
    expect(job.metadata.annotations['helm.sh/hook']).toBe('pre-install,pre-upgrade');
    expect(job.spec.backoffLimit).toBe(0);
    const container = job.spec.template.spec.containers[0] as Container & { command: string[] };
    expect(container.command).toEqual(['node', 'dist/cli/ensure-indexes.js']);
    expect(
      container.env?.find((variable) => variable.name === 'MONGODB_URL')?.valueFrom?.secretKeyRef,
    ).toBeDefined();
    expect(job.spec.template.spec.securityContext).toMatchObject({ runAsNonRoot: true });
    expect(container.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
    });
    const policy = findManifest(manifests, 'NetworkPolicy', '-index-job') as unknown as {
      metadata: { annotations: Record<string, string> };
      spec: { ingress: unknown[]; egress: { ports?: { port: number }[] }[] };
    };
    expect(policy.metadata.annotations['helm.sh/hook-weight']).toBe('-1');
    expect(policy.spec.ingress).toEqual([]);
    expect(policy.spec.egress.flatMap((rule) => rule.ports ?? []).map((p) => p.port)).not.toContain(
      6379,
    );
  });

  test("MongoDB's CA certificate is mounted from its Secret into the api pods and the index Job only", () => {
    const production = valuesFiles.length > 0;
    const mounts = (
      spec: PodSpec & { volumes?: { name: string; secret?: { secretName: string } }[] },
    ) =>
      (spec.volumes ?? [])
        .filter((volume) => volume.name === 'mongodb-tls')
        .map((volume) => volume.secret?.secretName);
    const job = (
      findManifest(manifests, 'Job', '-index-job') as unknown as {
        spec: { template: { spec: PodSpec } };
      }
    ).spec.template.spec;
    for (const spec of [podSpec(findManifest(manifests, 'Deployment', '-api')), job])
      expect(mounts(spec)).toEqual(production ? ['prod-mongodb-ca'] : []);
    expect(mounts(podSpec(findManifest(manifests, 'Deployment', '-ws')))).toEqual([]);
  });

  test('HPAs and PDBs exist for every tier that runs', () => {
    for (const name of ['api', 'ws', 'envoy'])
      expect(findManifest(manifests, 'PodDisruptionBudget', `-${name}`)).toBeDefined();
    expect(
      manifests.filter((m) => m.kind === 'HorizontalPodAutoscaler').length,
    ).toBeGreaterThanOrEqual(2);
  });
});

test('the ServiceMonitor is optional', () => {
  expect(renderManifests([]).some((m) => m.kind === 'ServiceMonitor')).toBe(false);
  expect(
    renderManifests([PRODUCTION_VALUES]).filter((m) => m.kind === 'ServiceMonitor'),
  ).toHaveLength(2);
});

describe('the embedded store (ALLOW_EMBEDDED_STORE)', () => {
  const single = [
    'config.ALLOW_EMBEDDED_STORE=true',
    'api.replicas=1',
    'api.autoscaling.enabled=false',
  ];

  test('runs one api pod without MONGODB_URL and without the index Job', () => {
    const manifests = renderManifests([], single);
    const api = podSpec(findManifest(manifests, 'Deployment', '-api')).containers[0] as Container;
    expect(api.env?.some((variable) => variable.name === 'MONGODB_URL')).toBe(false);
    expect(manifests.some((m) => m.kind === 'Job')).toBe(false);
  });

  test.each([
    ['autoscaling', ['config.ALLOW_EMBEDDED_STORE=true', 'api.replicas=1']],
    [
      'several replicas',
      ['config.ALLOW_EMBEDDED_STORE=true', 'api.replicas=2', 'api.autoscaling.enabled=false'],
    ],
  ])('is refused with %s, where pods would each keep their own data', (_, assignments) => {
    const result = renderChart([], assignments);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('config.ALLOW_EMBEDDED_STORE runs the api tier on each pod');
  });
});

describe('values.schema.json refuses bad values', () => {
  test.each([
    ['an unknown setting', 'config={"NOT_A_SETTING":"x"}', '/config'],
    ['a setting of the wrong type', 'config.MAX_BODY_BYTES="big"', '/config/MAX_BODY_BYTES'],
    ['a log level the service refuses', 'config.LOG_LEVEL="loud"', '/config/LOG_LEVEL'],
    ['a malformed duration', 'config.SERVICE_SESSION_TTL="30 days"', '/config/SERVICE_SESSION_TTL'],
    ['an empty Secret name', 'secretEnv.MONGODB_URL.name=""', '/secretEnv/MONGODB_URL/name'],
    ['an optional MongoDB Secret', 'secretEnv.MONGODB_URL.optional=true', '/secretEnv/MONGODB_URL'],
    ['a misspelt tier field', 'api.replica=3', '/api'],
    [
      'a writable root filesystem',
      'containerSecurityContext.readOnlyRootFilesystem=false',
      '/containerSecurityContext',
    ],
    ['root pods', 'podSecurityContext.runAsNonRoot=false', '/podSecurityContext'],
    ['an unknown Service type', 'envoy.service.type="Ingress"', '/envoy'],
    ['a zero rate limit', 'envoy.rateLimit.perIp.limit=0', '/envoy'],
  ])('%s', (_, assignment, path) => {
    const result = renderChart([], [assignment]);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("values don't meet the specifications of the schema");
    expect(result.stderr).toContain(path);
  });
});
