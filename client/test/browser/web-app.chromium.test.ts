/**
 * The reference web app and the SDK in a real browser (Debian's Chromium, support/chromium.ts)
 * against a real service that serves the app at /app/, with the spec's rate limits on (as
 * `npm start`): two wallets sign in in two browser contexts of one IP and chat live, encrypted,
 * without a 429 — 1:1 and in a group made in the app, with typing, read markers, an image, a
 * reaction and an edit; the session cookie is HttpOnly and SameSite=Strict: no cross-site request
 * (a form post, a top-level navigation, from a second site this test serves) carries it, while a
 * same-site request without the CSRF token is refused; the DPoP key made in the browser is
 * non-extractable and refreshes a bound family; a reload resumes without losing or duplicating a
 * message; the app's files are revalidated (304) outside the API's per-IP allowance; and the
 * service's store holds only ciphertext of what was said and shown.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32, deflateSync } from 'node:zlib';
import { build } from 'esbuild';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
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
  // The spec's limits, as `npm start` runs them: both browsers share one client IP.
  RATE_LIMITS_ENABLED: 'true',
  SERVICE_NAME: 'Chromium Test Chat',
}));

let browser: Browser;
let appUrl: string;
const said: string[] = [];
const sentImages: Buffer[] = [];

/** A valid PNG of `size`×`size` random RGB pixels: bytes no store could hold by chance. */
function pngOfRandomPixels(size: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const framed = Buffer.alloc(typed.length + 8);
    framed.writeUInt32BE(data.length, 0);
    typed.copy(framed, 4);
    framed.writeUInt32BE(crc32(typed), typed.length + 4);
    return framed;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  const rows = Buffer.concat(
    Array.from({ length: size }, () => Buffer.concat([Buffer.of(0), randomBytes(size * 3)])),
  );
  return Buffer.concat([
    Buffer.from('89504e470d0a1a0a', 'hex'),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

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

/**
 * `request` again while the service answers 429, after the Retry-After it gives: the tests above
 * spend the spec's per-IP allowance faster than a person would, and a raw request (no SDK) must
 * wait as a client does.
 */
async function pastRateLimit<T extends { status: number; retryAfter: number }>(
  request: () => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const result = await request();
    if (result.status !== 429 || attempt === 3) return result;
    await new Promise((resolve) => setTimeout(resolve, (result.retryAfter || 1) * 1000));
  }
}

interface Person {
  context: BrowserContext;
  page: Page;
  address: string;
  /** Every response this person's browser got, in order. */
  responses: Response[];
}

/** `METHOD /path` of the API requests among `responses` (the query left out). */
const apiCalls = (responses: readonly Response[]) =>
  responses
    .map((response) => ({ method: response.request().method(), url: new URL(response.url()) }))
    .filter(({ url }) => url.pathname.startsWith('/api/'))
    .map(({ method, url }) => `${method} ${url.pathname}`);

let counter = 0;
async function signedInPerson(): Promise<Person> {
  const context = await browser.newContext();
  const responses: Response[] = [];
  context.on('response', (response) => responses.push(response));
  const page = await context.newPage();
  await page.goto(appUrl);
  await page.getByRole('button', { name: 'Create a wallet in this browser' }).click();
  await page.getByText(/^Wallet: 0x/).waitFor();
  await page.getByLabel('Username (first sign-in only)').fill(`web_${process.pid}_${++counter}`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  const you = await page.getByText(/^You: 0x/).textContent();
  await page.getByRole('status').filter({ hasText: 'open' }).waitFor();
  return { context, page, address: you!.slice('You: '.length), responses };
}

async function say(person: Person, text: string): Promise<void> {
  said.push(text);
  await person.page.getByRole('textbox', { name: 'Message', exact: true }).fill(text);
  await person.page.getByRole('button', { name: 'Send', exact: true }).click();
}

const messageTexts = (page: Page) =>
  page.getByRole('list', { name: 'Messages' }).locator('.text').allTextContents();

const shownMessage = (person: Person, text: string) =>
  person.page.getByRole('list', { name: 'Messages' }).locator('li', { hasText: text });

const openChat = async (person: Person, peer: string) => {
  await person.page.getByLabel('Chat with (wallet address)').fill(peer);
  await person.page.getByRole('button', { name: 'Open chat' }).click();
};

let alice: Person;
let bob: Person;

describe('two wallets in two browser contexts', () => {
  it('sign in on one IP and exchange encrypted messages live, typing shown, without a 429', async () => {
    alice = await signedInPerson();
    bob = await signedInPerson();
    // What a first sign-in costs in API requests (the page, script and stylesheet are not API
    // requests, and no session is asked for without the CSRF cookie): the spec's per-IP burst
    // of 20 leaves room for two windows and their first messages.
    for (const person of [alice, bob])
      expect(apiCalls(person.responses).sort()).toEqual([
        'GET /api/v1/chats',
        'GET /api/v1/keys',
        'POST /api/v1/auth/ws-ticket',
        'POST /api/v1/initialize',
        'POST /api/v1/keys',
      ]);
    await openChat(alice, bob.address);
    await openChat(bob, alice.address);
    const typing = bob.page.getByText(/is typing…$/);
    expect(await typing.count()).toBe(0);
    await alice.page.getByRole('textbox', { name: 'Message', exact: true }).fill('hello bob');
    await typing.waitFor();
    await say(alice, 'hello bob, from chromium');
    await bob.page.getByText('hello bob, from chromium').waitFor();
    // The message ends the indicator (its sender stopped typing it).
    await typing.waitFor({ state: 'detached' });
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
    const statuses = [...alice.responses, ...bob.responses].map((response) => response.status());
    expect(statuses).not.toContain(429);
  });

  it('resume after a reload without losing or duplicating a message', async () => {
    const before = bob.responses.length;
    await bob.page.reload();
    await say(alice, 'sent while bob reloads');
    await bob.page.getByRole('status').filter({ hasText: 'open' }).waitFor();
    await openChat(bob, alice.address);
    await bob.page.getByText('sent while bob reloads').waitFor();
    await say(alice, 'and after');
    await bob.page.getByText('and after').waitFor();
    // The reload's requests and a test's pace can spend the one IP's burst of 20: the SDK then
    // waits out a 429's Retry-After, and the history comes after the live messages.
    for (const earlier of ['hello bob, from chromium', 'hi alice'])
      await bob.page.getByText(earlier).waitFor();
    expect(await messageTexts(bob.page)).toEqual([
      'hello bob, from chromium',
      'hi alice',
      'sent while bob reloads',
      'and after',
    ]);
    // The browser revalidated the app's script and stylesheet: the service said they are unchanged.
    const files = bob.responses
      .slice(before)
      .filter((response) => /\/app\/app\.(js|css)$/.test(response.url()));
    expect(files.map((response) => response.status())).toEqual([304, 304]);
  });

  it('make a group in the app, its message shown live and read', async () => {
    await alice.page.getByLabel('Group name').fill('Web group');
    await alice.page.getByLabel('Members (addresses, comma-separated)').fill(bob.address);
    await alice.page.getByRole('button', { name: 'Create group' }).click();
    await alice.page.getByRole('heading', { name: 'Web group' }).waitFor();
    await say(alice, 'hello group');
    await shownMessage(alice, 'hello group').waitFor();
    // Bob's chat list shows the group once its first message arrives; he opens it there, and
    // his browser moves his read marker in it (a 429 on the way is waited out by the SDK).
    const marked = bob.page.waitForResponse(
      (response) =>
        response.url().endsWith('/api/v1/mark-as-read') &&
        response.ok() &&
        (response.request().postData() ?? '').includes('group_id'),
    );
    await bob.page
      .getByRole('list', { name: 'Chats' })
      .getByRole('button', { name: /^Web group/ })
      .click();
    await shownMessage(bob, 'hello group').waitFor();
    await marked;
    expect(await messageTexts(bob.page)).toEqual(['hello group']);
    // The service tells Alice, the message's sender, of Bob's marker: her view shows it.
    await shownMessage(alice, 'hello group').locator('.meta', { hasText: 'read by 1' }).waitFor();
  });

  it('send an image the other browser decrypts and shows', async () => {
    const image = pngOfRandomPixels(16);
    await alice.page.getByLabel('Send an image').setInputFiles({
      name: 'noise.png',
      mimeType: 'image/png',
      buffer: image,
    });
    // Shown once downloaded and decrypted: its source is then the decrypted bytes.
    const shown = bob.page.locator('img[alt="noise.png"][src^="blob:"]');
    await shown.waitFor();
    const received = await shown.evaluate(async (img: HTMLImageElement) => {
      await img.decode();
      const bytes = new Uint8Array(await (await fetch(img.src)).arrayBuffer());
      return { width: img.naturalWidth, bytes: Array.from(bytes) };
    });
    expect(received.width).toBe(16);
    expect(Buffer.from(received.bytes)).toEqual(image);
    sentImages.push(image);
  });

  it('see a reaction and an edit live', async () => {
    await shownMessage(bob, 'hello group')
      .getByRole('button', { name: 'React with thumbs up' })
      .click();
    await shownMessage(alice, 'hello group').locator('.meta', { hasText: '👍' }).waitFor();
    alice.page.once('dialog', (dialog) => void dialog.accept('hello group, edited'));
    await shownMessage(alice, 'hello group').getByRole('button', { name: 'Edit' }).click();
    const edited = shownMessage(bob, 'hello group, edited');
    await edited.locator('.meta', { hasText: 'edited' }).waitFor();
    said.push('hello group, edited');
    expect(await messageTexts(bob.page)).toEqual(['hello group, edited']);
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
    const { status, body } = await pastRateLimit(() =>
      alice.page.evaluate(async () => {
        const response = await fetch('/api/v1/auth/logout-all', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        });
        return {
          status: response.status,
          body: (await response.json()) as unknown,
          retryAfter: Number(response.headers.get('retry-after')),
        };
      }),
    );
    expect({ status, body }).toEqual({
      status: 403,
      body: { success: false, error: expect.any(String), code: 'CSRF_TOKEN_INVALID' },
    });
  });

  it('sends the session cookie on no cross-site request: a form post, a top-level navigation', async () => {
    // Pages on another site (127.0.0.1 is not localhost's site) that post a form at the service
    // and navigate to it.
    const service = `http://localhost:${port}/api/v1`;
    const pages: Record<string, string> = {
      '/post':
        `<form id="f" method="POST" action="${service}/auth/logout-all">` +
        `<input name="keep_current" value="false"></form>` +
        `<script>document.getElementById('f').submit()</script>`,
      '/navigate': `<script>location.href = '${service}/session/me'</script>`,
    };
    const evil: Server = createServer((request, response) => {
      response.setHeader('content-type', 'text/html');
      response.end(pages[request.url ?? ''] ?? '');
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    const evilOrigin = `http://127.0.0.1:${(evil.address() as { port: number }).port}`;
    const navigation = async (page: Page, navigate: () => Promise<unknown>, target: string) => {
      const answered = page.waitForResponse((response) => response.url() === target);
      await navigate();
      const response = await answered;
      return {
        status: response.status(),
        cookie: (await response.request().allHeaders()).cookie ?? '',
        retryAfter: Number(response.headers()['retry-after']),
      };
    };
    const crossSite = (from: string, target: string) =>
      pastRateLimit(async () => {
        const page = await alice.context.newPage();
        const result = await navigation(page, () => page.goto(`${evilOrigin}${from}`), target);
        await page.close();
        return result;
      });
    try {
      const posted = await crossSite('/post', `${service}/auth/logout-all`);
      expect(posted.cookie).not.toContain('svc_session');
      const navigated = await crossSite('/navigate', `${service}/session/me`);
      expect(navigated).toMatchObject({
        status: 401,
        cookie: expect.not.stringContaining('svc_session'),
      });
    } finally {
      evil.close();
    }
    // The same navigation from the app's own page carries the cookie: the session still works.
    const sameSite = await pastRateLimit(() =>
      navigation(
        alice.page,
        () => alice.page.evaluate((target) => (location.href = target), `${service}/session/me`),
        `${service}/session/me`,
      ),
    );
    expect(sameSite.status).toBe(200);
    expect(sameSite.cookie).toContain('svc_session=');
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
      const signer = sdkGlobal.privateKeySigner(sdkGlobal.newPrivateKey());
      const signIn = () =>
        sdkGlobal.signIn({
          baseUrl: location.origin,
          signer,
          registration: { username },
          siwe: { domain: location.host, uri: location.href },
          dpop: true,
        });
      // The third sign-in from this IP within the minute: the spec lets initialize take a burst
      // of 2, then 5 a minute. A client waits what Retry-After says, once.
      const { session } = await signIn().catch(
        async (error: InstanceType<typeof sdkGlobal.ApiError>) => {
          if (error.status !== 429) throw error;
          await new Promise((resolve) =>
            setTimeout(resolve, (error.retryAfterSeconds ?? 1) * 1000),
          );
          return signIn();
        },
      );
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

describe("the app's files", () => {
  it('are revalidated by ETag, spend nothing of the per-IP allowance, and are only the app', async () => {
    const first = await fetch(appUrl);
    const etag = first.headers.get('etag');
    expect(first.status).toBe(200);
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(first.headers.get('cache-control')).toBe('no-cache');
    // The service names itself in the page (the key binding the wallet signs names it).
    expect(await first.text()).toContain(
      '<meta name="service-name" content="Chromium Test Chat" />',
    );
    // More revalidations than the per-IP burst of 20: none is refused.
    const again = await Promise.all(
      Array.from({ length: 30 }, () => fetch(appUrl, { headers: { 'if-none-match': etag! } })),
    );
    expect(again.map((response) => response.status)).toEqual(Array(30).fill(304));
    // The build folder holds only the app: no file of the service's own build is served there.
    expect((await fetch(new URL('start-app.js', appUrl))).status).toBe(404);
  });
});

describe('the service store', () => {
  it('holds only ciphertext of what the browsers said and showed', async () => {
    await alice.context.close();
    await bob.context.close();
    const { messages, blobs } = await stopAndReadStore(service, async (store) => ({
      messages: await store.collection('messages').find({}),
      blobs: mediaBlobs(service.dataDir),
    }));
    expect(messages.length).toBeGreaterThanOrEqual(said.length);
    const everything = JSON.stringify(messages);
    for (const text of said) expect(everything).not.toContain(text);
    // The image was uploaded encrypted: a blob at least its size, holding none of its pixels.
    expect(sentImages).toHaveLength(1);
    const [image] = sentImages;
    expect(blobs.some((blob) => blob.length >= image!.length)).toBe(true);
    const pixels = image!.subarray(image!.length - 64, image!.length - 12);
    for (const blob of blobs) expect(blob.includes(pixels)).toBe(false);
  });
});

/** The media blobs the embedded store keeps (as files, DATA_DIR/media). */
function mediaBlobs(dataDir: string): Buffer[] {
  const folder = path.join(dataDir, 'media');
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(path.join(folder, entry.name)));
}
