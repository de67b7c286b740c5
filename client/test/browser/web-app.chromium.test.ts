/**
 * The reference web app and the SDK in a real browser (Debian's Chromium, support/chromium.ts)
 * against a real service that serves the app at /app/: two wallets sign in in two browser
 * contexts and chat live, encrypted; the session cookie is HttpOnly and SameSite=Strict and a
 * cross-site form post (from a second origin this test serves) does not act on the session,
 * while a same-site request without the CSRF token is refused; the DPoP key made in the browser
 * is non-extractable and refreshes a bound family; a reload resumes without losing or
 * duplicating a message; and the service's store holds only ciphertext of what was said.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { freePort } from '../../../test/support/ports.js';
import { serviceForThisFile } from '../../../test/support/service-for-tests.js';
import { stopAndReadStore } from '../../../test/support/signin-store.js';
import { launchChromium } from './support/chromium.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const appDir = mkdtempSync(path.join(tmpdir(), 'web-app-'));
let port = 0;
// Before the service's own hook (hooks run in order): SIWE messages name the page's host, so
// the service must be started on a port known in advance.
beforeAll(async () => {
  port = await freePort();
});
const { service } = serviceForThisFile(() => ({
  PORT: String(port),
  WEB_APP_DIR: appDir,
  SIWE_DOMAINS: `localhost:${port}`,
  // The app runs on plain HTTP here; localhost is a secure context, so Secure cookies still work.
  SESSION_COOKIE_SECURE: 'true',
}));

let browser: Browser;
let appUrl: string;
const said: string[] = [];

beforeAll(async () => {
  const { buildWebApp } = await import('../../../scripts/build-web-app.mjs');
  await buildWebApp(appDir);
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  rmSync(appDir, { recursive: true, force: true });
});

beforeAll(() => {
  appUrl = `http://localhost:${port}/app/`;
});

interface Person {
  context: BrowserContext;
  page: Page;
  address: string;
}

let counter = 0;
async function signedInPerson(): Promise<Person> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(appUrl);
  await page.getByRole('button', { name: 'Create a wallet in this browser' }).click();
  await page.getByText(/^Wallet: 0x/).waitFor();
  await page.getByLabel('Username (first sign-in only)').fill(`web_${process.pid}_${++counter}`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  const you = await page.getByText(/^You: 0x/).textContent();
  await page.getByRole('status').filter({ hasText: 'open' }).waitFor();
  return { context, page, address: you!.slice('You: '.length) };
}

async function say(person: Person, text: string): Promise<void> {
  said.push(text);
  await person.page.getByRole('textbox', { name: 'Message', exact: true }).fill(text);
  await person.page.getByRole('button', { name: 'Send', exact: true }).click();
}

const messageTexts = (page: Page) =>
  page.getByRole('list', { name: 'Messages' }).locator('.text').allTextContents();

const openChat = async (person: Person, peer: string) => {
  await person.page.getByLabel('Chat with (wallet address)').fill(peer);
  await person.page.getByRole('button', { name: 'Open chat' }).click();
};

let alice: Person;
let bob: Person;

describe('two wallets in two browser contexts', () => {
  it('sign in and exchange encrypted messages live', async () => {
    alice = await signedInPerson();
    bob = await signedInPerson();
    await openChat(alice, bob.address);
    await openChat(bob, alice.address);
    await say(alice, 'hello bob, from chromium');
    await bob.page.getByText('hello bob, from chromium').waitFor();
    await say(bob, 'hi alice');
    await alice.page.getByText('hi alice').waitFor();
    expect(await messageTexts(alice.page)).toEqual(['hello bob, from chromium', 'hi alice']);
    // The SDK's end-to-end encryption did it: each browser keeps its device keys and a Double
    // Ratchet session with the other in its own persistent KeyStore.
    for (const [person, peer] of [
      [alice, bob],
      [bob, alice],
    ] as const) {
      const records = await person.page.evaluate(() => Object.keys(localStorage));
      const prefix = `messaging-app:e2ee:${person.address.toLowerCase()}:`;
      expect(records).toEqual(
        expect.arrayContaining([
          `${prefix}identity`,
          `${prefix}session:${peer.address.toLowerCase()}`,
        ]),
      );
    }
    // Bob has read Alice's message: her view shows the read marker.
    await alice.page.locator('li.mine .meta', { hasText: 'read' }).first().waitFor();
    // The README's screenshot: `UPDATE_SCREENSHOT=1` rewrites it from this very state.
    if (process.env.UPDATE_SCREENSHOT)
      await alice.page.screenshot({ path: path.join(here, '../../../docs/images/web-app.png') });
  });

  it('resume after a reload without losing or duplicating a message', async () => {
    await bob.page.reload();
    await say(alice, 'sent while bob reloads');
    await bob.page.getByRole('status').filter({ hasText: 'open' }).waitFor();
    await openChat(bob, alice.address);
    await bob.page.getByText('sent while bob reloads').waitFor();
    await say(alice, 'and after');
    await bob.page.getByText('and after').waitFor();
    expect(await messageTexts(bob.page)).toEqual([
      'hello bob, from chromium',
      'hi alice',
      'sent while bob reloads',
      'and after',
    ]);
  });
});

describe('cookie session in the browser', () => {
  it('keeps the session cookie HttpOnly and SameSite=Strict, out of reach of scripts', async () => {
    const cookies = await alice.context.cookies(appUrl);
    expect(cookies.find((cookie) => cookie.name === 'svc_session')).toMatchObject({
      httpOnly: true,
      sameSite: 'Strict',
    });
    expect(cookies.find((cookie) => cookie.name === 'svc_csrf')).toMatchObject({
      httpOnly: false,
      sameSite: 'Strict',
    });
    const visible = await alice.page.evaluate(() => document.cookie);
    expect(visible).toContain('svc_csrf=');
    expect(visible).not.toContain('svc_session');
  });

  it('refuses a same-site unsafe request without the CSRF token (403)', async () => {
    const answer = await alice.page.evaluate(async () => {
      const response = await fetch('/api/v1/auth/logout-all', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      return { status: response.status, body: (await response.json()) as unknown };
    });
    expect(answer).toEqual({
      status: 403,
      body: { success: false, error: expect.any(String), code: 'CSRF_TOKEN_INVALID' },
    });
  });

  it('does not let a cross-site form post act on the session', async () => {
    // A page on another site (127.0.0.1 is not localhost's site) posting a form at the service.
    const target = `http://localhost:${port}/api/v1/auth/logout-all`;
    const evil: Server = createServer((_request, response) => {
      response.setHeader('content-type', 'text/html');
      response.end(
        `<form id="f" method="POST" action="${target}"><input name="keep_current" value="false"></form>` +
          `<script>document.getElementById('f').submit()</script>`,
      );
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    const evilPort = (evil.address() as { port: number }).port;
    try {
      const page = await alice.context.newPage();
      const posted = page.waitForResponse((response) => response.url() === target);
      await page.goto(`http://127.0.0.1:${evilPort}/`);
      const response = await posted;
      // Refused (no session cookie crosses sites under SameSite=Strict, and a form body is not JSON).
      expect(response.status()).toBeGreaterThanOrEqual(400);
      await page.close();
    } finally {
      evil.close();
    }
    // Alice's session still works.
    const me = await alice.page.evaluate(async () => (await fetch('/api/v1/session/me')).status);
    expect(me).toBe(200);
  });
});

describe('DPoP in the browser', () => {
  it('makes a non-extractable key and refreshes the family bound to it', async () => {
    const sdk = await build({
      entryPoints: [path.join(here, '../../src/index.ts')],
      bundle: true,
      format: 'iife',
      globalName: 'MessagingSdk',
      platform: 'browser',
      write: false,
    });
    const page = await (await browser.newContext()).newPage();
    await page.goto(appUrl);
    await page.addScriptTag({ content: sdk.outputFiles[0]!.text });
    const result = await page.evaluate(async (username) => {
      const sdkGlobal = (
        globalThis as unknown as { MessagingSdk: typeof import('../../src/index.js') }
      ).MessagingSdk;
      const { session } = await sdkGlobal.signIn({
        baseUrl: location.origin,
        signer: sdkGlobal.privateKeySigner(sdkGlobal.newPrivateKey()),
        registration: { username },
        siwe: { domain: location.host, uri: location.href },
        dpop: true,
      });
      const before = session.tokens.refreshToken;
      await session.refresh();
      const key = session.dpopKey!.privateKey;
      return {
        extractable: key.extractable,
        exportRefused: await crypto.subtle.exportKey('pkcs8', key).then(
          () => false,
          () => true,
        ),
        rotated: session.tokens.refreshToken !== before,
      };
    }, `dpop_${process.pid}`);
    expect(result).toEqual({ extractable: false, exportRefused: true, rotated: true });
    await page.context().close();
  });
});

describe('the service store', () => {
  it('holds only ciphertext of what the browsers said', async () => {
    await alice.context.close();
    await bob.context.close();
    const stored = await stopAndReadStore(service, (store) =>
      store.collection('messages').find({}),
    );
    expect(stored.length).toBeGreaterThanOrEqual(said.length);
    const everything = JSON.stringify(stored);
    for (const text of said) expect(everything).not.toContain(text);
  });
});
