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

/** The rule violations in `cwd`'s `src` folder (the CLI exits non-zero when there are some; the report is what counts). */
export async function violationsIn(cwd: string): Promise<Violation[]> {
  const run = promisify(execFile)(process.execPath, [CLI, 'src', '--config', RULES, '--output-type', 'json'], { cwd, maxBuffer: 64 * 1024 * 1024 });
  const { stdout } = await run.catch((failure: { stdout?: string }) => ({ stdout: failure.stdout ?? '' }));
  const report = JSON.parse(stdout) as { summary: { violations: { rule: { name: string }; from: string; to: string }[] } };
  return report.summary.violations.map((violation) => ({ rule: violation.rule.name, from: violation.from, to: violation.to }));
}
