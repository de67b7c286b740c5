/**
 * DPoP proofs checked with jose (an independent JOSE implementation), the key's private half
 * refused for export, the reconnection delays' bounds, the retry of an idempotent request, and
 * a session's requests waiting out a 429 (against a real HTTP server).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EmbeddedJWK, calculateJwkThumbprint, jwtVerify } from 'jose';
import type { JWK } from 'jose';
import { ApiError } from '../src/api-error.js';
import { withRetry } from '../src/messaging/retry.js';
import { backoffDelay } from '../src/realtime/backoff.js';
import { CookieSession } from '../src/session/cookie-session.js';
import { createDpopKey, dpopProof } from '../src/session/dpop-key.js';

describe('DPoP', () => {
  it('makes RFC 9449 proofs that verify with the embedded public key', async () => {
    const key = await createDpopKey();
    const proof = await dpopProof(key, 'POST', 'https://chat.example/api/v1/auth/refresh?x=1#y');
    const { payload, protectedHeader } = await jwtVerify(proof, EmbeddedJWK, {
      typ: 'dpop+jwt',
      algorithms: ['ES256'],
    });
    expect(payload).toEqual({
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      htm: 'POST',
      htu: 'https://chat.example/api/v1/auth/refresh',
      iat: expect.any(Number),
    });
    expect(Math.abs(payload.iat! - Date.now() / 1000)).toBeLessThan(5);
    // Every proof of one key names the same key, and a new jti each time.
    const second = await jwtVerify(
      await dpopProof(key, 'POST', 'https://chat.example/a'),
      EmbeddedJWK,
    );
    expect(await calculateJwkThumbprint(second.protectedHeader.jwk as JWK)).toBe(
      await calculateJwkThumbprint(protectedHeader.jwk as JWK),
    );
    expect(second.payload.jti).not.toBe(payload.jti);
  });

  it('keeps the private key non-extractable', async () => {
    const key = await createDpopKey();
    expect(key.privateKey.extractable).toBe(false);
    await expect(crypto.subtle.exportKey('pkcs8', key.privateKey)).rejects.toThrow();
    await expect(crypto.subtle.exportKey('jwk', key.privateKey)).rejects.toThrow();
  });
});

describe('reconnection backoff', () => {
  it('grows exponentially up to its cap, drawn below it', () => {
    expect(backoffDelay(0, { initialMs: 100, maxMs: 1000 }, () => 0.999)).toBe(99);
    expect(backoffDelay(3, { initialMs: 100, maxMs: 1000 }, () => 0.999)).toBe(799);
    expect(backoffDelay(10, { initialMs: 100, maxMs: 1000 }, () => 0.999)).toBe(999);
    expect(backoffDelay(10, { initialMs: 100, maxMs: 1000 }, () => 0)).toBe(0);
  });
});

describe('retry of idempotent requests', () => {
  it('retries what may pass (503 with Retry-After, no answer) and returns the success', async () => {
    const answers: Array<() => string> = [
      () => {
        throw new ApiError(503, 'UNAVAILABLE', 'later', 0.01);
      },
      () => {
        throw new ApiError(0, 'NETWORK_ERROR', 'offline');
      },
      () => 'stored',
    ];
    let calls = 0;
    await expect(withRetry(async () => answers[calls++]!())).resolves.toBe('stored');
    expect(calls).toBe(3);
  });

  it('does not retry a refusal (409) and stops after its attempts', async () => {
    let calls = 0;
    const conflict = new ApiError(409, 'CONFLICT', 'used');
    await expect(
      withRetry(async () => {
        calls++;
        throw conflict;
      }),
    ).rejects.toBe(conflict);
    expect(calls).toBe(1);
    calls = 0;
    await expect(
      withRetry(async () => {
        calls++;
        throw new ApiError(429, 'RATE_LIMIT_EXCEEDED', 'slow down', 0.001);
      }, 3),
    ).rejects.toThrow('slow down');
    expect(calls).toBe(3);
  });
});

describe('a session under a rate limit', () => {
  /** A server answering 429 with `retryAfter` seconds `refusals` times, then 200; counts requests. */
  async function limitedServer(refusals: number, retryAfter: number) {
    let requests = 0;
    const server = createServer((_request, response) => {
      requests++;
      const refused = requests <= refusals;
      response.writeHead(refused ? 429 : 200, {
        'content-type': 'application/json',
        ...(refused ? { 'retry-after': String(retryAfter) } : {}),
      });
      response.end(
        JSON.stringify(
          refused
            ? { success: false, error: 'Rate limit exceeded', code: 'RATE_LIMIT_EXCEEDED' }
            : { success: true },
        ),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return {
      session: new CookieSession(`http://127.0.0.1:${port}`, 'csrf'),
      requests: () => requests,
      close: () => new Promise((resolve) => server.close(resolve)),
    };
  }

  it('sends the request again after the Retry-After the service gave', async () => {
    const limited = await limitedServer(1, 1);
    const started = Date.now();
    try {
      expect(await limited.session.call('POST', '/typing', {})).toEqual({ success: true });
      expect(limited.requests()).toBe(2);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    } finally {
      await limited.close();
    }
  });

  it('hands over the 429 when the wait would pass its patience (15 s)', async () => {
    const limited = await limitedServer(1, 60);
    try {
      await expect(limited.session.call('POST', '/typing', {})).rejects.toMatchObject({
        status: 429,
        retryAfterSeconds: 60,
      });
      expect(limited.requests()).toBe(1);
    } finally {
      await limited.close();
    }
  });
});
