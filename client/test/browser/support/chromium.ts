/**
 * Debian's Chromium driven by playwright-core (never Playwright's own browser download):
 * headless, without sandbox (CI runs as root), GPU, first-run UI, background networking,
 * component updates, sync or QUIC. Each launch gets a fresh profile (Playwright makes a new
 * temporary `--user-data-dir` per launch and removes it on close).
 */
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
    ],
  });
}
