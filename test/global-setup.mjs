// Compiles src/ once per test run into .test-build/, for the tests that start the service as a
// real child process (graceful shutdown, kill -9 durability). TEST_BUILD_DIR (a folder name at
// the repository root) lets parallel test runs in one checkout keep their builds apart.
// Type errors are reported but do not stop the run: tsc still emits, and `npm run typecheck`
// (a step of .ci/run) is where they fail the build.
import { execFileSync } from 'node:child_process';

export default function globalSetup() {
  const outDir = process.env.TEST_BUILD_DIR ?? '.test-build';
  try {
    // Incremental: the next run in the same checkout (CI's soak step after the suite) rebuilds
    // only what changed instead of all of src/.
    execFileSync(
      'npx',
      [
        '--no-install',
        'tsc',
        '-p',
        'tsconfig.build.json',
        '--outDir',
        outDir,
        '--incremental',
        '--tsBuildInfoFile',
        `${outDir}/.tsbuildinfo`,
      ],
      { stdio: 'inherit' },
    );
  } catch {
    console.warn(
      `\ntest build in ${outDir} has type errors (see above); tests run on what tsc emitted\n`,
    );
  }
}
