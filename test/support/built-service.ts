/**
 * The compiled service of this test run (test/global-setup.mjs builds src/ into .test-build/,
 * or the folder TEST_BUILD_DIR names), for tests that need real child processes: graceful
 * shutdown, kill -9 durability, several process roles.
 */
import { fileURLToPath } from 'node:url';

const buildDir = process.env.TEST_BUILD_DIR ?? '.test-build';

export const builtModule = (relativePath: string): string =>
  fileURLToPath(new URL(`../../${buildDir}/${relativePath}`, import.meta.url));

export const builtMain = builtModule('main.js');
