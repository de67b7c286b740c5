/**
 * Sealed sender end to end on one service (REST, gRPC, real WebSocket clients): sender
 * certificates that a recipient verifies with independent code against the published trust
 * root; sealed envelopes delivered once to a connected recipient, queued for an offline one and
 * delivered when it connects; retries recognised; and after a sealed send, neither the stored
 * documents it wrote, nor the log, the delivered event or /metrics name the sender.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { grpc, grpcClient, unary } from '../support/grpc-client.js';
import { KeyOwner } from '../support/key-bundles.js';
import { realtimeClientsForThisFile } from '../support/realtime-client.js';
import { decodeCertificate, recipientAccepts } from '../support/independent-sender-certificates.js';
import type { TrustRootKey } from '../support/independent-sender-certificates.js';
import { expectFailure, expectOk, sleep } from '../support/session-api.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { TestUser, bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';

const { service, api } = serviceForThisFile();
let sender: SignedIn;
let recipient: SignedIn;
let senderKeys: KeyOwner;

beforeAll(async () => {
  [sender, recipient] = await Promise.all([signIn(service.baseUrl), signIn(service.baseUrl)]);
  senderKeys = new KeyOwner(sender.user);
});
const connect = realtimeClientsForThisFile(service);

let counter = 0;
const sealed = (
  to: SignedIn,
  payload = Buffer.from(`sealed ${++counter}`),
  clientMessageId = `sealed-${Date.now()}-${counter}`,
) => ({
  recipient_address: to.user.address,
  sealed_payload: payload.toString('base64'),
  client_message_id: clientMessageId,
});
const send = (body: unknown) => api.post('/api/v1/relay/sealed-v3', body, bearer(sender));

describe('sender certificates', () => {
  it('are refused before the caller has published a key bundle (409)', async () => {
    expectFailure(await api.post('/api/v1/relay/sender-cert', {}, bearer(sender)), 409, 'CONFLICT');
    expectFailure(await api.post('/api/v1/relay/sender-cert', {}), 401, 'UNAUTHORIZED');
  });

  it('bind the caller to their published keys for 24 hours, signed by the pinned trust root key', async () => {
    const bundle = await senderKeys.bundle();
    expectOk(await api.post('/api/v1/keys', bundle, bearer(sender)));
    const trustRoot = expectOk(await api.get('/api/v1/relay/trust-root'));
    expect(trustRoot.keys).toEqual([
      { key_id: expect.any(String), algorithm: 'Ed25519', public_key: expect.any(String) },
    ]);
    const pinned = trustRoot.keys as TrustRootKey[];
    expect(Buffer.from(pinned[0]!.public_key, 'base64')).toHaveLength(32);

    const issued = expectOk(await api.post('/api/v1/relay/sender-cert', {}, bearer(sender)));
    const decoded = decodeCertificate(issued.certificate);
    expect(decoded).toEqual({
      sender_address: senderKeys.address,
      identity_key: bundle.identityKey,
      ed25519_public_key: bundle.ed25519PublicKey,
      key_id: pinned[0]!.key_id,
      issued_at: expect.stringMatching(/Z$/),
      expires_at: issued.expires_at,
    });
    expect(issued.data).toEqual(decoded);
    expect(issued.key_id).toBe(pinned[0]!.key_id);
    expect(new Date(decoded.expires_at).getTime() - new Date(decoded.issued_at).getTime()).toBe(
      24 * 60 * 60 * 1000,
    );
    expect(recipientAccepts(issued, pinned, new Date())).toBe(true);
    // A certificate whose bytes were changed, or signed by a key that is not pinned, is refused.
    const tampered = Buffer.from(issued.certificate, 'base64');
    tampered[tampered.length - 1]! ^= 1;
    expect(
      recipientAccepts({ ...issued, certificate: tampered.toString('base64') }, pinned, new Date()),
    ).toBe(false);
    expect(
      recipientAccepts(
        issued,
        [{ ...pinned[0]!, public_key: senderKeys.ed25519PublicKey }],
        new Date(),
      ),
    ).toBe(false);
  });
});

describe('the relay', () => {
  it('refuses bad envelopes (400), unknown recipients (404) and anonymous callers (401)', async () => {
    expectFailure(
      await send({ ...sealed(recipient), recipient_address: '0x12' }),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await send({ ...sealed(recipient), sealed_payload: '' }),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await send(sealed(recipient, Buffer.alloc(256 * 1024 + 1, 1))),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await send({ ...sealed(recipient), client_message_id: '' }),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await send({ ...sealed(recipient), client_message_id: 'x'.repeat(65) }),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await send({ ...sealed(recipient), recipient_address: new TestUser().address }),
      404,
      'NOT_FOUND',
    );
    expectFailure(
      await api.post('/api/v1/relay/sealed-v3', sealed(recipient)),
      401,
      'UNAUTHORIZED',
    );
  });

  it('delivers once to a connected recipient, and recognises a retry', async () => {
    const device = await connect(recipient);
    const body = sealed(recipient);
    const accepted = expectOk(await send(body));
    expect(accepted).toEqual({
      success: true,
      message: expect.any(String),
      message_id: expect.any(String),
      received_at: expect.any(String),
      delivered: true,
      duplicate: false,
    });
    const event = await device.next('sealed.message');
    expect(event.data).toEqual({
      message_id: accepted.message_id,
      sealed_payload: body.sealed_payload,
      received_at: accepted.received_at,
    });
    expect(typeof event.seq).toBe('number');

    const retry = expectOk(await send(body));
    expect(retry).toMatchObject({
      message_id: accepted.message_id,
      received_at: accepted.received_at,
      delivered: true,
      duplicate: true,
    });
    await sleep(300);
    expect(device.ofType('sealed.message')).toHaveLength(1);
    device.close();
  });

  it('queues for an offline recipient and delivers on connect, once', async () => {
    const offline = await signIn(service.baseUrl);
    const bodies = [sealed(offline), sealed(offline)];
    const accepted = [];
    for (const body of bodies) accepted.push(expectOk(await send(body)));
    expect(accepted.map((reply) => reply.delivered)).toEqual([false, false]);

    const device = await connect(offline);
    const first = await device.next('sealed.message');
    const second = await device.next('sealed.message', () => true, 5000, 2);
    expect([first.data.message_id, second.data.message_id]).toEqual(
      accepted.map((reply) => reply.message_id),
    );
    expect(second.data.sealed_payload).toBe(bodies[1]!.sealed_payload);
    expect(expectOk(await send(bodies[0])).delivered).toBe(true);
    device.close();

    const again = await connect(offline);
    await sleep(300);
    expect(again.ofType('sealed.message')).toEqual([]);
    again.close();
  });

  it('accepts envelopes over gRPC too', async () => {
    const relay = grpcClient(
      service.grpcAddress,
      'service/v1/relay.proto',
      'service.v1.RelayService',
    );
    const metadata = new grpc.Metadata();
    metadata.set('authorization', `Bearer ${sender.accessToken}`);
    const reply = await unary(
      relay,
      'SendSealedMessage',
      {
        recipient_address: recipient.user.address,
        sealed_payload: Buffer.from('over grpc'),
        client_message_id: `grpc-${Date.now()}`,
      },
      metadata,
    );
    expect(reply).toMatchObject({ success: true, duplicate: false });
    await expect(
      unary(
        relay,
        'SendSealedMessage',
        { recipient_address: 'nope', sealed_payload: Buffer.from('x'), client_message_id: 'g' },
        metadata,
      ),
    ).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
    relay.close();
  });
});

describe('no link between the sender and the envelope', () => {
  /** The embedded store's journal: every document written since `offset`, as journaled (full new versions). */
  const journal = () => {
    const file = readdirSync(service.dataDir)
      .filter((name) => /^journal\.\d+\.ejsonl$/.test(name))
      .sort()
      .pop()!;
    return join(service.dataDir, file);
  };
  const writtenSince = (path: string, offset: number) =>
    readFileSync(path).subarray(offset).toString('utf8').split('\n').filter(Boolean);

  it('after a sealed send (delivered and queued), no stored document, log line, event or metric names the sender', async () => {
    // The 40 hex digits in any case, with or without 0x.
    const digits = sender.user.address.slice(2).toLowerCase();
    const namesSender = (text: string) => text.toLowerCase().includes(digits);
    const device = await connect(recipient);
    const offline = await signIn(service.baseUrl);
    const path = journal();
    const offset = statSync(path).size;
    const logsBefore = service.logs.length;

    const online = sealed(recipient);
    expectOk(await send(online));
    expectOk(await send(sealed(offline)));
    const event = await device.next(
      'sealed.message',
      (frame) => frame.data.sealed_payload === online.sealed_payload,
    );
    const offlineDevice = await connect(offline);
    const queuedEvent = await offlineDevice.next('sealed.message');

    const written = writtenSince(path, offset);
    // The sends did write: the two envelopes, queued then delivered.
    expect(
      written.filter((line) => line.includes('"sealed_envelopes"')).length,
    ).toBeGreaterThanOrEqual(3);
    // The sender's own session may record that it was used (at most once a minute, as any request does); nothing else names the sender.
    const naming = written
      .filter(namesSender)
      .filter((line) => !(line.includes('"c":"sessions"') && line.includes(sender.sessionId)));
    expect(naming).toEqual([]);

    const logged = service.logs.slice(logsBefore).map((line) => JSON.stringify(line));
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.filter(namesSender)).toEqual([]);
    expect(namesSender(JSON.stringify(event))).toBe(false);
    expect(namesSender(JSON.stringify(queuedEvent))).toBe(false);
    const metrics = await (await fetch(`${service.baseUrl}/metrics`)).text();
    expect(metrics).toContain('RelayService');
    expect(namesSender(metrics)).toBe(false);
    device.close();
    offlineDevice.close();
  });
});
