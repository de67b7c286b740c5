/**
 * Every series the chart's alerting rules and Grafana dashboard query is exported by the running
 * service, with the label names they select and group by. The service runs as a real process on
 * a Redis of its own with the abuse controls on; a small workload makes the labelled series
 * appear: sign-ins (one refused), a message delivered over /ws, a push to a local push service
 * (retried once),
 * a key-bundle fetch, an upload, a resume that must resync, and a short Redis freeze (the 503s
 * and Redis errors). Then `/metrics` is scraped and compared with the names in every PromQL
 * expression of the rendered PrometheusRule and of the dashboard's JSON (promql-names.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import webPush from 'web-push';
import { findManifest, PRODUCTION_VALUES, REPO, renderManifests } from '../deploy/support/helm.js';
import { LocalPushService } from '../support/local-push-service.js';
import { startPrivateDeployment } from '../support/private-deployment.js';
import type { PrivateDeployment } from '../support/private-deployment.js';
import { RealtimeClient } from '../support/realtime-client.js';
import { expectOk } from '../support/session-api.js';
import { TestUser, bearer } from '../support/wallet.js';
import { namesIn } from './support/promql-names.js';
import type { ExpressionNames } from './support/promql-names.js';

/** Added by Prometheus to every scraped series (ServiceMonitor targets), not by the service. */
const TARGET_LABELS = new Set(['namespace', 'job', 'pod', 'instance', 'service', 'container']);
/** Series Prometheus makes itself. */
const PROMETHEUS_SERIES = new Set(['up']);
/**
 * Series with samples only after a failure the workload does not cause (a store error, a push
 * dropped after 8 attempts or its TTL): their names must be exported (HELP/TYPE); their label
 * names cannot be read from samples, so they are the ones their code declares
 * (dependency-metrics.ts, push-metrics.ts).
 */
const FAILURE_ONLY: ReadonlyMap<string, readonly string[]> = new Map([
  ['store_operation_errors_total', ['operation', 'reason']],
  ['push_failed_total', ['reason']],
]);

const wide = { limit: 100_000, burst: 10_000 };
let pushService: LocalPushService;
let deployment: PrivateDeployment;
const clients: RealtimeClient[] = [];

beforeAll(async () => {
  pushService = await LocalPushService.start();
  const vapid = webPush.generateVAPIDKeys();
  deployment = await startPrivateDeployment('single process', {
    RATE_LIMITS_ENABLED: 'true',
    RATE_LIMIT_OVERRIDES: JSON.stringify({
      ip: wide,
      user: wide,
      auth: wide,
      default: wide,
      'AuthService.Initialize': wide,
    }),
    PUSH_VAPID_PUBLIC_KEY: vapid.publicKey,
    PUSH_VAPID_PRIVATE_KEY: vapid.privateKey,
    PUSH_CA_FILE: pushService.caFile,
  });
}, 120_000);
afterAll(async () => {
  for (const client of clients) client.close();
  await deployment?.stop();
  await pushService?.stop();
});

async function workload(): Promise<void> {
  const { http } = deployment;
  const [alice, bob, carol] = [
    await deployment.signIn(),
    await deployment.signIn(),
    await deployment.signIn(),
  ];
  const wrong = await new TestUser().initializeBody('register', {
    signature: `0x${'11'.repeat(65)}`,
  });
  expect((await http.post('/api/v1/initialize', wrong)).status).toBeGreaterThanOrEqual(400);
  // Carol is offline with a push subscription; Bob is on /ws.
  const device = pushService.device();
  // Its push service answers 503 once: the push is retried (push_retries_total), then sent.
  device.answers.push({ status: 503 });
  expectOk(await http.post('/api/v1/push/subscribe', device.subscription(), bearer(carol)));
  const bobsDevice = await RealtimeClient.connect(
    deployment.apiUrl,
    deployment.wsUrls[0]!,
    bob.accessToken,
  );
  clients.push(bobsDevice);
  for (const [to, id] of [
    [bob, 'm-bob'],
    [carol, 'm-carol'],
  ] as const) {
    const body = { client_message_id: id, recipient_address: to.user.address, ciphertext: 'aGk=' };
    expectOk(await http.post('/api/v1/send', body, bearer(alice)));
  }
  await bobsDevice.next('message.new');
  await pushService.waitForRequests(device, 2);
  await http.get(`/api/v1/keys/${carol.user.address}`, bearer(alice));
  const upload = { kind: 'file', content_type: 'application/octet-stream', data: 'aGVsbG8=' };
  expectOk(await http.post('/api/v1/upload-media', upload, bearer(alice)));
  // A resume from a stream that does not exist: resync_required.
  const stale = await RealtimeClient.connect(
    deployment.apiUrl,
    deployment.wsUrls[0]!,
    alice.accessToken,
    { stream: 'gone', seq: 3 },
  );
  clients.push(stale);
  await stale.next('resync_required');
  // Redis frozen for one call: a 503 and Redis commands failing as unavailable.
  deployment.redis.freeze();
  try {
    expect((await http.get('/api/v1/auth/sessions', bearer(alice))).status).toBe(503);
  } finally {
    deployment.redis.thaw();
  }
}

/** Each metric family of the scrape with the label names its samples carry. */
function families(exposition: string): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  const typed = new Map<string, string>();
  for (const line of exposition.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)/.exec(line);
    if (type) {
      typed.set(type[1]!, type[2]!);
      found.set(type[1]!, new Set());
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{([^}]*)\})?\s/.exec(line);
    if (!sample) continue;
    const labels = [...(sample[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="/g)].map((m) => m[1]!);
    const family = [sample[1]!, sample[1]!.replace(/_(bucket|sum|count)$/, '')].find((name) =>
      typed.has(name),
    );
    for (const label of labels) found.get(family ?? sample[1]!)?.add(label);
  }
  return found;
}

function queriedExpressions(): { source: string; expr: string }[] {
  const manifests = renderManifests([PRODUCTION_VALUES]);
  const rule = findManifest(manifests, 'PrometheusRule', 'release-messaging') as unknown as {
    spec: { groups: { rules: { alert?: string; record?: string; expr: string }[] }[] };
  };
  const fromRules = rule.spec.groups.flatMap((group) =>
    group.rules.map((r) => ({ source: r.alert ?? r.record ?? '', expr: r.expr })),
  );
  const dashboard = JSON.parse(
    readFileSync(join(REPO, 'helm/messaging/files/dashboards/messaging.json'), 'utf8'),
  ) as { panels: { title: string; targets?: { expr: string }[] }[] };
  const fromDashboard = dashboard.panels.flatMap((panel) =>
    (panel.targets ?? []).map((target) => ({ source: panel.title, expr: target.expr })),
  );
  expect(fromRules.length).toBeGreaterThan(30);
  expect(fromDashboard.length).toBeGreaterThan(20);
  return [...fromRules, ...fromDashboard];
}

it('exports every series and label the alerts and the dashboard query', async () => {
  await workload();
  const scrape = await (await fetch(`${deployment.apiUrl}/metrics`)).text();
  const exported = families(scrape);
  const expressions = queriedExpressions();
  const recorded = new Set(
    expressions.filter((e) => e.source.startsWith('messaging:')).map((e) => e.source),
  );
  const problems: string[] = [];
  for (const { source, expr } of expressions) {
    const names: ExpressionNames = namesIn(expr);
    const labelsOfExpression = new Set<string>(TARGET_LABELS);
    for (const { name, labels } of names.series) {
      if (recorded.has(name) || PROMETHEUS_SERIES.has(name)) {
        labels.forEach((label) => labelsOfExpression.add(label));
        continue;
      }
      const family = exported.has(name) ? name : name.replace(/_(bucket|sum|count)$/, '');
      const known = exported.get(family);
      if (!known) {
        problems.push(`${source}: ${name} is not exported`);
        continue;
      }
      const available = new Set([
        ...(FAILURE_ONLY.get(family) ?? []),
        ...known,
        ...TARGET_LABELS,
        ...(name.endsWith('_bucket') ? ['le'] : []),
      ]);
      for (const label of labels) {
        if (!available.has(label)) problems.push(`${source}: ${name} has no label ${label}`);
        labelsOfExpression.add(label);
      }
      available.forEach((label) => labelsOfExpression.add(label));
    }
    for (const label of names.groupingLabels)
      if (!labelsOfExpression.has(label))
        problems.push(`${source}: groups by unknown label ${label}`);
  }
  expect(problems).toEqual([]);
  // The check itself catches what it is for: a misspelt name and a label no series has.
  const check = (expr: string) =>
    namesIn(expr).series.filter((s) => !exported.has(s.name.replace(/_(bucket|sum|count)$/, '')));
  expect(check('rate(ws_delivery_lag_secs_bucket[5m])')).toHaveLength(1);
  expect(exported.get('rpc_requests_total')).not.toContain('tier');
}, 90_000);
