// Compiles src/ once per test run into .test-build/, for the tests that start the service as a
// real child process (graceful shutdown, kill -9 durability).
import { execFileSync } from 'node:child_process';

export default function globalSetup() {
  execFileSync('npx', ['--no-install', 'tsc', '-p', 'tsconfig.build.json', '--outDir', '.test-build'], { stdio: 'inherit' });
}
