/**
 * The CAPTCHA verifier against a local fake siteverify endpoint, and the gate middleware on
 * the real Initialize descriptor (which has `captcha_token`) and on one without it.
 */
import { Code, ConnectError, createContextValues } from '@connectrpc/connect';
import type { DescMethod } from '@bufbuild/protobuf';
import { AuthService } from '../../../src/gen/service/v1/auth_pb.js';
import { SystemService } from '../../../src/gen/service/v1/system_pb.js';
import { RestHandlerContext } from '../../../src/gateway/rest-handler-context.js';
import { captchaGate } from '../../../src/limits/captcha/captcha-gate.js';
import {
  CaptchaUnavailableError,
  SITEVERIFY_URLS,
  createCaptchaVerifier,
} from '../../../src/limits/captcha/captcha-verifier.js';
import type { CaptchaVerifier } from '../../../src/limits/captcha/captcha-verifier.js';
import { ERROR_CODE_HEADER } from '../../../src/platform/errors/api-error.js';
import { createLogger } from '../../../src/platform/logging/logger.js';
import { callInfo, callInfoKey } from '../../../src/platform/rpc/call-context.js';
import { startFakeCaptchaProvider } from './fake-captcha-provider.js';
import type { FakeCaptchaProvider } from './fake-captcha-provider.js';

const SECRET = 'top-secret-0x5ec';
const CLIENT_IP = '203.0.113.7';
const TIMEOUT_MS = 200;

let provider: FakeCaptchaProvider;
let verifier: CaptchaVerifier;

beforeAll(async () => {
  provider = await startFakeCaptchaProvider(SECRET, 2_000);
  verifier = createCaptchaVerifier({
    provider: 'turnstile',
    secret: SECRET,
    verifyUrl: provider.url,
    timeoutMs: TIMEOUT_MS,
  });
});

afterAll(async () => {
  await provider.close();
});

const logLines: string[] = [];

function contextFor(method: DescMethod) {
  const values = createContextValues().set(
    callInfoKey,
    callInfo({
      requestId: 'req-1',
      clientIp: CLIENT_IP,
      transport: 'rest',
      baseLogger: createLogger('debug', { write: (line: string) => void logLines.push(line) }),
    }),
  );
  return new RestHandlerContext(method.parent, method, 'POST', '/x', new Map(), values);
}

async function failure(promise: Promise<unknown>): Promise<ConnectError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ConnectError) return error;
    throw error;
  }
  throw new Error('expected a ConnectError');
}

const initialize = AuthService.method.initialize;
const getVersion = SystemService.method.getVersion;

describe('captcha verifier', () => {
  it('accepts "good", sending secret, response and remoteip as a form', async () => {
    provider.received.length = 0;
    await expect(verifier.verify('good', CLIENT_IP)).resolves.toBe(true);
    expect(provider.received).toEqual([
      {
        contentType: 'application/x-www-form-urlencoded',
        form: { secret: SECRET, response: 'good', remoteip: CLIENT_IP },
      },
    ]);
  });

  it('refuses other tokens, and a wrong secret gets no success', async () => {
    await expect(verifier.verify('bad', CLIENT_IP)).resolves.toBe(false);
    const wrongSecret = createCaptchaVerifier({
      provider: 'hcaptcha',
      secret: 'nope',
      verifyUrl: provider.url,
    });
    await expect(wrongSecret.verify('good', CLIENT_IP)).resolves.toBe(false);
  });

  it('throws CaptchaUnavailableError when the provider is slower than the timeout', async () => {
    const started = Date.now();
    const error = await verifier.verify('slow', CLIENT_IP).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CaptchaUnavailableError);
    expect((error as CaptchaUnavailableError).reason).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('throws CaptchaUnavailableError on HTTP 500, a non-JSON body, or an unreachable provider', async () => {
    const status = await verifier.verify('fail', CLIENT_IP).catch((e: unknown) => e);
    expect(status).toBeInstanceOf(CaptchaUnavailableError);
    expect((status as CaptchaUnavailableError).reason).toBe('status');
    const junk = await verifier.verify('junk', CLIENT_IP).catch((e: unknown) => e);
    expect((junk as CaptchaUnavailableError).reason).toBe('malformed');
    const closed = createCaptchaVerifier({
      provider: 'turnstile',
      secret: SECRET,
      verifyUrl: 'http://127.0.0.1:1/siteverify',
      timeoutMs: 1_000,
    });
    const network = await closed.verify('good', CLIENT_IP).catch((e: unknown) => e);
    expect(network).toBeInstanceOf(CaptchaUnavailableError);
    for (const error of [status, junk, network] as Error[]) {
      expect(error.message).not.toContain(SECRET);
      expect(error.message).not.toContain('good');
      expect(error.cause).toBeUndefined();
    }
  });

  it("uses each provider's siteverify URL by default", async () => {
    const urls: string[] = [];
    const fakeFetch = (async (url: string | URL | Request) => {
      urls.push(typeof url === 'string' ? url : url instanceof URL ? url.href : url.url);
      return new Response(JSON.stringify({ success: true }), { status: 200 });
    }) as typeof fetch;
    await createCaptchaVerifier({ provider: 'turnstile', secret: SECRET, fetch: fakeFetch }).verify(
      't',
      CLIENT_IP,
    );
    await createCaptchaVerifier({ provider: 'hcaptcha', secret: SECRET, fetch: fakeFetch }).verify(
      't',
      CLIENT_IP,
    );
    expect(urls).toEqual([
      'https://challenges.cloudflare.com/turnstile/v0/siteverify',
      'https://api.hcaptcha.com/siteverify',
    ]);
    expect(SITEVERIFY_URLS.turnstile).toBe(urls[0]);
  });
});

describe('captcha gate', () => {
  const run = (method: DescMethod, request: unknown, gate = captchaGate(verifier)) => {
    let reached = false;
    const result = gate({ method, request, context: contextFor(method) }, async () => {
      reached = true;
      return {};
    });
    return Promise.resolve(result).then(() => reached);
  };

  it('lets Initialize through with an accepted token', async () => {
    await expect(run(initialize, { captchaToken: 'good' })).resolves.toBe(true);
  });

  it('refuses Initialize without a token: 400 CAPTCHA_REQUIRED, without asking the provider', async () => {
    provider.received.length = 0;
    for (const request of [{}, { captchaToken: '' }]) {
      const error = await failure(run(initialize, request));
      expect(error.code).toBe(Code.InvalidArgument);
      expect(error.metadata.get(ERROR_CODE_HEADER)).toBe('CAPTCHA_REQUIRED');
    }
    expect(provider.received).toHaveLength(0);
  });

  it('refuses a refused token with 400 CAPTCHA_REQUIRED and another message', async () => {
    const missing = await failure(run(initialize, {}));
    const refused = await failure(run(initialize, { captchaToken: 'bad' }));
    expect(refused.code).toBe(Code.InvalidArgument);
    expect(refused.metadata.get(ERROR_CODE_HEADER)).toBe('CAPTCHA_REQUIRED');
    expect(refused.rawMessage).not.toBe(missing.rawMessage);
    const tooLong = await failure(run(initialize, { captchaToken: 'x'.repeat(4097) }));
    expect(tooLong.metadata.get(ERROR_CODE_HEADER)).toBe('CAPTCHA_REQUIRED');
  });

  it('answers 503 CAPTCHA_UNAVAILABLE when the provider times out or fails, logging neither secret nor token', async () => {
    logLines.length = 0;
    for (const captchaToken of ['slow', 'fail']) {
      const error = await failure(run(initialize, { captchaToken }));
      expect(error.code).toBe(Code.Unavailable);
      expect(error.metadata.get(ERROR_CODE_HEADER)).toBe('CAPTCHA_UNAVAILABLE');
    }
    expect(logLines.length).toBeGreaterThan(0);
    for (const line of logLines) {
      expect(line).not.toContain(SECRET);
      expect(line).not.toMatch(/"(slow|fail)"/);
    }
  });

  it('passes RPCs without captcha_token untouched, never calling the verifier', async () => {
    let calls = 0;
    const gate = captchaGate({ verify: async () => (calls++, false) });
    await expect(run(getVersion, {}, gate)).resolves.toBe(true);
    await expect(run(AuthService.method.checkUsername, { username: 'alice' }, gate)).resolves.toBe(
      true,
    );
    expect(calls).toBe(0);
  });

  it('passes the client IP to the verifier', async () => {
    const seen: string[] = [];
    const gate = captchaGate({ verify: async (_token, ip) => (seen.push(ip), true) });
    await expect(run(initialize, { captchaToken: 'anything' }, gate)).resolves.toBe(true);
    expect(seen).toEqual([CLIENT_IP]);
  });
});
