/** Runs dependency-cruiser (pinned in package.json) with the repository's rules on a source tree. */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const REPOSITORY = fileURLToPath(new URL('../../../', import.meta.url));
const CLI = `${REPOSITORY}node_modules/dependency-cruiser/bin/dependency-cruise.mjs`;
const RULES = `${REPOSITORY}.dependency-cruiser.cjs`;

export interface Violation {
  readonly rule: string;
  readonly from: string;
  readonly to: string;
}

interface Report {
  readonly summary: {
    readonly violations: readonly {
      readonly rule: { readonly name: string };
      readonly from: string;
      readonly to: string;
    }[];
  };
  readonly modules: readonly {
    readonly source: string;
    readonly dependencies: readonly { readonly resolved: string }[];
  }[];
}

/**
 * `no-top-folder-cycles`: each import between two folders directly under src/ (areas or floors)
 * that lie on a cycle, as `src/<folder> → src/<folder>`. dependency-cruiser's own folder cycles
 * (`no-folder-cycles`) are between the innermost folders, so keys → relay and relay → keys/store
 * are no cycle to it.
 */
function topFolderCycles(report: Report): Violation[] {
  const top = (file: string) => /^src\/([^/]+)\//.exec(file)?.[1];
  const edges = new Map<string, Set<string>>();
  for (const module of report.modules) {
    const from = top(module.source);
    for (const { resolved } of module.dependencies) {
      const to = top(resolved);
      if (from !== undefined && to !== undefined && from !== to)
        edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
  }
  const reaches = (start: string, goal: string): boolean => {
    const seen = new Set([start]);
    const queue = [start];
    for (let folder = queue.shift(); folder !== undefined; folder = queue.shift()) {
      if (folder === goal) return true;
      for (const next of edges.get(folder) ?? []) {
        if (!seen.has(next)) {
          seen.add(next);
          queue.push(next);
        }
      }
    }
    return false;
  };
  return [...edges]
    .flatMap(([from, tos]) =>
      [...tos]
        .filter((to) => reaches(to, from))
        .map((to) => ({ rule: 'no-top-folder-cycles', from: `src/${from}`, to: `src/${to}` })),
    )
    .sort((a, b) => `${a.from} ${a.to}`.localeCompare(`${b.from} ${b.to}`));
}

/**
 * The rule violations in `cwd`'s `src` folder (the CLI exits non-zero when there are some; the
 * report is what counts), and the cycles between the folders directly under src/.
 */
export async function violationsIn(cwd: string): Promise<Violation[]> {
  const run = promisify(execFile)(
    process.execPath,
    [CLI, 'src', '--config', RULES, '--output-type', 'json'],
    { cwd, maxBuffer: 64 * 1024 * 1024 },
  );
  const { stdout } = await run.catch((failure: { stdout?: string }) => ({
    stdout: failure.stdout ?? '',
  }));
  const report = JSON.parse(stdout) as Report;
  return [
    ...report.summary.violations.map((violation) => ({
      rule: violation.rule.name,
      from: violation.from,
      to: violation.to,
    })),
    ...topFolderCycles(report),
  ];
}
