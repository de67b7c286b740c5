/**
 * The chart's alerts, checked by Prometheus's own promtool on the rules the chart renders:
 * `promtool check rules` (syntax, PromQL, templates) and `promtool test rules` with the unit
 * tests of test/deploy/prometheus/alerts.test.yaml, in which each alert fires on one set of
 * synthetic series and stays quiet on another. Every runbook_url names a section of
 * docs/deploy.md. Without promtool (Debian package `prometheus`) the test is skipped on a
 * developer machine and fails in CI (CI=true), where .ci/run installs it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import {
  findManifest,
  lintChart,
  PRODUCTION_VALUES,
  REPO,
  renderManifests,
} from './support/helm.js';

const PROMTOOL = (() => {
  try {
    return execFileSync('bash', ['-c', 'command -v promtool'], { encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
})();
const UNIT_TESTS = join(REPO, 'test', 'deploy', 'prometheus', 'alerts.test.yaml');

interface Rule {
  alert?: string;
  record?: string;
  annotations?: Record<string, string>;
}
interface RuleGroup {
  name: string;
  rules: Rule[];
}

function renderedGroups(setJson: readonly string[] = []): RuleGroup[] {
  const manifests = renderManifests([], ['prometheusRule={"enabled":true}', ...setJson]);
  const rule = findManifest(manifests, 'PrometheusRule', 'release-messaging');
  return (rule as unknown as { spec: { groups: RuleGroup[] } }).spec.groups;
}

/**
 * Runs promtool on the groups with the unit tests beside them (only those of `alert` when
 * given); status and output.
 */
function promtool(
  groups: RuleGroup[],
  alert?: string,
): { check: string; test: { status: number; out: string } } {
  const dir = mkdtempSync(join(tmpdir(), 'rules-'));
  try {
    writeFileSync(join(dir, 'rules.yaml'), stringify({ groups }));
    const tests = parse(readFileSync(UNIT_TESTS, 'utf8')) as {
      tests: { alert_rule_test: { alertname: string }[] }[];
    };
    if (alert) tests.tests = tests.tests.filter((t) => t.alert_rule_test[0]?.alertname === alert);
    writeFileSync(join(dir, 'alerts.test.yaml'), stringify(tests));
    const check = spawnSync(PROMTOOL, ['check', 'rules', 'rules.yaml'], {
      cwd: dir,
      encoding: 'utf8',
    });
    if (check.status !== 0)
      throw new Error(`promtool check rules failed:\n${check.stdout}${check.stderr}`);
    const test = spawnSync(PROMTOOL, ['test', 'rules', 'alerts.test.yaml'], {
      cwd: dir,
      encoding: 'utf8',
    });
    return {
      check: check.stdout,
      test: { status: test.status ?? -1, out: test.stdout + test.stderr },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const withPromtool = PROMTOOL !== '' || process.env.CI === 'true' ? describe : describe.skip;

withPromtool('the PrometheusRule, run by promtool', () => {
  test('promtool is installed (CI installs the Debian package prometheus)', () => {
    expect(PROMTOOL).not.toBe('');
  });

  test('passes promtool check rules and every unit test: each alert fires and stays quiet', () => {
    const { check, test } = promtool(renderedGroups());
    expect(check).toMatch(/SUCCESS: \d+ rules found/);
    expect(test.out).toContain('SUCCESS');
    expect(test.status).toBe(0);
  });

  test('the unit tests catch a broken alert: a threshold raised beyond the synthetic lag', () => {
    const { test } = promtool(renderedGroups(['prometheusRule.thresholds.deliveryLagSeconds=100']));
    expect(test.status).not.toBe(0);
    expect(test.out).toContain('alertname: MessagingDeliveryLagHigh');
  });
});

test('every alert has a unit test that fires it and one that does not', () => {
  const alerts = renderedGroups().flatMap((group) => group.rules.flatMap((r) => r.alert ?? []));
  const tests = readFileSync(UNIT_TESTS, 'utf8');
  for (const alert of alerts) {
    expect(tests).toMatch(new RegExp(`alertname: ${alert}\\n\\s+exp_alerts:\\n\\s+- exp_labels`));
    expect(tests).toMatch(new RegExp(`alertname: ${alert}\\n\\s+exp_alerts: \\[\\]`));
  }
  expect(alerts.length).toBeGreaterThanOrEqual(17);
});

test("every alert's runbook_url is a section of docs/deploy.md", () => {
  const deploy = readFileSync(join(REPO, 'docs', 'deploy.md'), 'utf8');
  const anchors = new Set(
    [...deploy.matchAll(/^#{2,4} (.+)$/gm)].map((m) =>
      m[1]!
        .toLowerCase()
        .replace(/[^a-z0-9 -]/g, '')
        .replace(/ /g, '-'),
    ),
  );
  for (const group of renderedGroups())
    for (const rule of group.rules.filter((r) => r.alert)) {
      const [base, anchor] = (rule.annotations?.runbook_url ?? '').split('#');
      expect(base).toMatch(/docs\/deploy\.md$/);
      expect(anchors).toContain(anchor);
    }
});

test('helm lint passes with the optional monitoring parts off and on', () => {
  for (const values of [[], [PRODUCTION_VALUES]]) {
    const result = lintChart(values);
    expect(`${result.stdout}${result.stderr}`).toContain('0 chart(s) failed');
    expect(result.status).toBe(0);
  }
});

test('the PrometheusRule and the dashboard are optional', () => {
  const kinds = (values: string[]) =>
    renderManifests(values)
      .filter((m) => m.kind === 'PrometheusRule' || m.metadata.labels?.grafana_dashboard === '1')
      .map((m) => m.kind);
  expect(kinds([])).toEqual([]);
  expect(kinds([PRODUCTION_VALUES]).sort()).toEqual(['ConfigMap', 'PrometheusRule']);
  // The dashboard ships as the file the metrics test reads, whole and valid JSON.
  const dashboard = findManifest(renderManifests([PRODUCTION_VALUES]), 'ConfigMap', '-dashboard');
  const json = (dashboard as unknown as { data: Record<string, string> }).data['messaging.json'];
  expect(JSON.parse(json ?? '')).toEqual(
    JSON.parse(readFileSync(join(REPO, 'helm/messaging/files/dashboards/messaging.json'), 'utf8')),
  );
});
