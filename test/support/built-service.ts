/**
 * The compiled service of this test run (test/global-setup.mjs builds src/ into .test-build/),
 * for tests that need real child processes: graceful shutdown, kill -9 durability.
 */
import { fileURLToPath } from 'node:url';

export const builtModule = (relativePath: string): string => fileURLToPath(new URL(`../../.test-build/${relativePath}`, import.meta.url));

export const builtMain = builtModule('main.js');
