/**
 * Renders the chart with the real Helm binary (scripts/install-helm.sh puts helm v4 under
 * node_modules/.cache), as `helm template` would for an install: values.schema.json is
 * enforced, templates must render, and the output must be YAML.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

export const REPO = fileURLToPath(new URL('../../..', import.meta.url));
export const CHART = join(REPO, 'helm', 'messaging');
export const PRODUCTION_VALUES = join(CHART, 'ci', 'production-values.yaml');

let helmPath: string | undefined;

function helm(): string {
  helmPath ??= join(
    REPO,
    execFileSync('bash', [join(REPO, 'scripts', 'install-helm.sh')], { encoding: 'utf8' }).trim(),
  );
  return helmPath;
}

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; [key: string]: unknown };
  [key: string]: unknown;
}

export interface RenderResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** `helm template` of the chart with the given values files and --set-json assignments. */
export function renderChart(
  valuesFiles: readonly string[] = [],
  setJson: readonly string[] = [],
): RenderResult {
  const args = ['template', 'release', CHART, '--namespace', 'messaging'];
  for (const file of valuesFiles) args.push('--values', file);
  for (const assignment of setJson) args.push('--set-json', assignment);
  const run = spawnSync(helm(), args, { encoding: 'utf8' });
  return { status: run.status ?? -1, stdout: run.stdout, stderr: run.stderr };
}

/** `helm lint` of the chart with the given values files: its status and output. */
export function lintChart(valuesFiles: readonly string[] = []): RenderResult {
  const args = ['lint', CHART, '--namespace', 'messaging'];
  for (const file of valuesFiles) args.push('--values', file);
  const run = spawnSync(helm(), args, { encoding: 'utf8' });
  return { status: run.status ?? -1, stdout: run.stdout, stderr: run.stderr };
}

/** The rendered manifests; throws with Helm's message when rendering fails. */
export function renderManifests(
  valuesFiles: readonly string[] = [],
  setJson: readonly string[] = [],
): Manifest[] {
  const result = renderChart(valuesFiles, setJson);
  if (result.status !== 0) throw new Error(`helm template failed:\n${result.stderr}`);
  return parseAllDocuments(result.stdout).flatMap((document) => {
    if (document.errors.length > 0)
      throw new Error(`rendered YAML is invalid: ${document.errors[0]?.message}`);
    const value = document.toJS() as Manifest | null;
    return value === null ? [] : [value];
  });
}

export function findManifest(
  manifests: readonly Manifest[],
  kind: string,
  nameSuffix: string,
): Manifest {
  const found = manifests.find((m) => m.kind === kind && m.metadata.name.endsWith(nameSuffix));
  if (!found) throw new Error(`no ${kind} named *${nameSuffix}`);
  return found;
}
