/**
 * A real local Web Push service for end-to-end tests: an HTTPS server on loopback with a
 * self-signed certificate (made by the openssl command), playing the browser vendor's push
 * endpoint. It checks every request as a push service would (RFC 8030 headers, the RFC 8292
 * VAPID JWT signed by the key the request names) and decrypts the payload with the keys of the
 * browser that subscribed, following RFC 8291 and RFC 8188 step by step with node:crypto: an
 * implementation independent of the service's (web-push and its http_ece).
 *
 * Each endpoint can be told what to answer next (`respondWith`): a 410, a 503, a 429 with
 * Retry-After; by default 201 Created.
 */
import { execFileSync } from 'node:child_process';
import {
  createECDH,
  createDecipheriv,
  createPublicKey,
  hkdfSync,
  randomBytes,
  verify,
} from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One request the push service received, checked and decrypted. */
export interface ReceivedPush {
  readonly device: string;
  readonly at: number;
  readonly headers: Record<string, string | string[] | undefined>;
  /** The raw encrypted body. */
  readonly body: Buffer;
  /** The decrypted payload (null when the request was answered with an error status before decryption). */
  readonly plaintext: string | null;
  /** The VAPID JWT claims, once the signature was verified. */
  readonly vapid: { aud: string; exp: number; sub: string; k: string };
  /** What the service was answered. */
  readonly status: number;
}

export interface ScriptedAnswer {
  readonly status: number;
  readonly headers?: Record<string, string>;
}

/** A browser's side of a subscription: its ECDH key pair and auth secret (RFC 8291 section 2). */
export class PushDevice {
  readonly ecdh = createECDH('prime256v1');
  readonly authSecret = randomBytes(16);
  readonly answers: ScriptedAnswer[] = [];

  constructor(
    readonly name: string,
    readonly endpoint: string,
  ) {
    this.ecdh.generateKeys();
  }

  /** `PushSubscription.toJSON()`, as the browser sends it to the application server. */
  subscription(): { endpoint: string; keys: { p256dh: string; auth: string } } {
    return {
      endpoint: this.endpoint,
      keys: {
        p256dh: this.ecdh.getPublicKey().toString('base64url'),
        auth: this.authSecret.toString('base64url'),
      },
    };
  }

  /** The next request to this device's endpoint gets these answers, in order, then 201 again. */
  respondWith(...answers: ScriptedAnswer[]): void {
    this.answers.push(...answers);
  }

  /** RFC 8291 section 3.4 and RFC 8188 section 2: one record, padding delimiter 2. */
  decrypt(body: Buffer): string {
    const salt = body.subarray(0, 16);
    const recordSize = body.readUInt32BE(16);
    const idLength = body[20]!;
    const serverPublicKey = body.subarray(21, 21 + idLength);
    const record = body.subarray(21 + idLength);
    if (idLength !== 65 || record.length > recordSize)
      throw new Error('not a single aes128gcm record with a P-256 key id');
    const sharedSecret = this.ecdh.computeSecret(serverPublicKey);
    const keyInfo = Buffer.concat([
      Buffer.from('WebPush: info\0'),
      this.ecdh.getPublicKey(),
      serverPublicKey,
    ]);
    const ikm = Buffer.from(hkdfSync('sha256', sharedSecret, this.authSecret, keyInfo, 32));
    const cek = Buffer.from(
      hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16),
    );
    const nonce = Buffer.from(
      hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12),
    );
    const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
    decipher.setAuthTag(record.subarray(record.length - 16));
    const padded = Buffer.concat([
      decipher.update(record.subarray(0, record.length - 16)),
      decipher.final(),
    ]);
    let end = padded.length - 1;
    while (end >= 0 && padded[end] === 0) end -= 1;
    if (padded[end] !== 2) throw new Error('the last record must end with the delimiter 2');
    return padded.subarray(0, end).toString('utf8');
  }
}

export class LocalPushService {
  readonly received: ReceivedPush[] = [];
  /** Requests refused because they broke the protocol (what a real push service would refuse). */
  readonly protocolErrors: string[] = [];
  private readonly devices = new Map<string, PushDevice>();
  private waiters: (() => void)[] = [];
  private nextDevice = 0;

  private constructor(
    private readonly server: Server,
    readonly origin: string,
    /** The certificate, for PUSH_CA_FILE. */
    readonly caFile: string,
    private readonly directory: string,
  ) {}

  static async start(): Promise<LocalPushService> {
    const directory = mkdtempSync(join(tmpdir(), 'push-service-'));
    const keyFile = join(directory, 'key.pem');
    const certFile = join(directory, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        keyFile,
        '-out',
        certFile,
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    const server = createServer(
      { key: readFileSync(keyFile), cert: readFileSync(certFile) },
      (request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          // Requests come only once the port is known, so after `service` below is set.
          const answer = service.handle(
            request.method ?? '',
            request.url ?? '',
            request.headers,
            Buffer.concat(chunks),
          );
          response.writeHead(answer.status, answer.headers ?? {}).end();
        });
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const service = new LocalPushService(
      server,
      `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
      certFile,
      directory,
    );
    return service;
  }

  /** A new browser subscription on this push service. */
  device(): PushDevice {
    const name = `device-${++this.nextDevice}-${randomBytes(6).toString('hex')}`;
    const device = new PushDevice(name, `${this.origin}/push/${name}`);
    this.devices.set(name, device);
    return device;
  }

  /** The pushes a device received and accepted (201), in order. */
  deliveredTo(device: PushDevice): ReceivedPush[] {
    return this.received.filter((push) => push.device === device.name && push.status === 201);
  }

  requestsTo(device: PushDevice): ReceivedPush[] {
    return this.received.filter((push) => push.device === device.name);
  }

  /** Waits until `count` requests reached the device (any answer), at most `timeoutMs`. */
  async waitForRequests(
    device: PushDevice,
    count: number,
    timeoutMs = 10_000,
  ): Promise<ReceivedPush[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.requestsTo(device).length < count) {
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `${device.name}: ${this.requestsTo(device).length} of ${count} push requests within ${timeoutMs} ms`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.requestsTo(device);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
    rmSync(this.directory, { recursive: true, force: true });
  }

  private handle(
    method: string,
    url: string,
    headers: ReceivedPush['headers'],
    body: Buffer,
  ): ScriptedAnswer {
    const name = /^\/push\/([\w-]+)$/.exec(url)?.[1];
    const device = name === undefined ? undefined : this.devices.get(name);
    if (method !== 'POST' || !device) return { status: 404 };
    let vapid: ReceivedPush['vapid'];
    let plaintext: string;
    try {
      vapid = checkVapid(String(headers.authorization ?? ''), this.origin);
      if (headers['content-encoding'] !== 'aes128gcm')
        throw new Error(`Content-Encoding ${String(headers['content-encoding'])}`);
      if (!/^\d+$/.test(String(headers.ttl ?? ''))) throw new Error('TTL header missing');
      plaintext = device.decrypt(body);
    } catch (error) {
      this.protocolErrors.push(`${device.name}: ${(error as Error).message}`);
      return { status: 400 };
    }
    const answer = device.answers.shift() ?? { status: 201 };
    this.received.push({
      device: device.name,
      at: Date.now(),
      headers,
      body,
      plaintext,
      vapid,
      status: answer.status,
    });
    for (const wake of this.waiters.splice(0)) wake();
    return answer;
  }
}

/** RFC 8292: `Authorization: vapid t=<JWT>, k=<public key>`; the JWT is ES256, for this origin, not expired, at most 24 h. */
function checkVapid(authorization: string, origin: string): ReceivedPush['vapid'] {
  const match = /^vapid t=([\w-]+\.[\w-]+\.[\w-]+), k=([\w-]+)$/.exec(authorization);
  if (!match) throw new Error('no vapid Authorization');
  const [, token, k] = match as unknown as [string, string, string];
  const [header, claims, signature] = token.split('.') as [string, string, string];
  const point = Buffer.from(k, 'base64url');
  const spki = Buffer.concat([
    Buffer.from('3059301306072a8648ce3d020106082a8648ce3d030107034200', 'hex'),
    point,
  ]);
  const key = createPublicKey({ key: spki, format: 'der', type: 'spki' });
  if (
    !verify(
      'sha256',
      Buffer.from(`${header}.${claims}`),
      { key, dsaEncoding: 'ieee-p1363' },
      Buffer.from(signature, 'base64url'),
    )
  )
    throw new Error('VAPID signature');
  if (JSON.parse(Buffer.from(header, 'base64url').toString()).alg !== 'ES256')
    throw new Error('VAPID alg');
  const payload = JSON.parse(Buffer.from(claims, 'base64url').toString()) as {
    aud: string;
    exp: number;
    sub: string;
  };
  const now = Date.now() / 1000;
  if (payload.aud !== origin) throw new Error(`VAPID aud ${payload.aud}`);
  if (!(payload.exp > now && payload.exp <= now + 24 * 3600)) throw new Error('VAPID exp');
  return { ...payload, k };
}
