/**
 * The SDK against a real service (one per file, real HTTP and WebSocket, Node 20): sign-in by
 * template with proof of work and by SIWE, token refresh shared by concurrent calls and the end
 * of a session whose refresh family was revoked, DPoP binding, live delivery with resume and
 * resync, catch-up by cursor, an idempotent send whose answer was lost, and a streamed,
 * encrypted image upload. Messages go through a test cipher (support/shared-key-cipher.ts): the
 * end-to-end protocol is tested by client/test/crypto/.
 */
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { serviceForThisFile } from '../../test/support/service-for-tests.js';
import { passesEventually } from '../../test/support/passes-eventually.js';
import { ApiError, SessionEndedError } from '../src/api-error.js';
import type { HttpMethod } from '../src/api-caller.js';
import { createGroup } from '../src/messaging/chats.js';
import { Messenger } from '../src/messaging/messenger.js';
import { RealtimeConnection } from '../src/realtime/realtime-connection.js';
import type { StreamPosition } from '../src/realtime/realtime-events.js';
import type { SendOptions } from '../src/session/authorized-session.js';
import { createDpopKey, dpopProof } from '../src/session/dpop-key.js';
import { TokenSession } from '../src/session/token-session.js';
import { signIn } from '../src/sign-in/sign-in.js';
import { newPrivateKey, privateKeySigner } from '../src/signer/private-key-signer.js';
import { sharedKeyCipher } from './support/shared-key-cipher.js';

const POW_BITS = 8;
const { service } = serviceForThisFile({ SERVICE_POW_DIFFICULTY_BITS: String(POW_BITS) });

let registered = 0;
/** A new wallet with an account. */
async function newAccount() {
  const signer = privateKeySigner(newPrivateKey());
  const signedIn = await signIn({
    baseUrl: service.baseUrl,
    signer,
    registration: { username: `sdk_${process.pid}_${++registered}_${Date.now() % 1e6}` },
    powDifficultyBits: POW_BITS,
  });
  const address = signedIn.user.address;
  return {
    signer,
    address,
    session: signedIn.session,
    messenger: new Messenger(signedIn.session, sharedKeyCipher(address), address),
  };
}

const realtime = (session: TokenSession, position?: StreamPosition) =>
  new RealtimeConnection({
    api: session,
    baseUrl: service.baseUrl,
    WebSocket: WebSocket as unknown as typeof globalThis.WebSocket,
    ...(position ? { position } : {}),
  });

/** Starts a connection and collects the ids of the `message.new` events it hands over. */
function collectingNewMessages(connection: RealtimeConnection): string[] {
  const ids: string[] = [];
  connection.on('message.new', ({ message }) => void ids.push(message.id));
  connection.start();
  return ids;
}

const opened = (state: { value?: string }) => (connection: RealtimeConnection) =>
  connection.on('state', (value) => void (state.value = value));

describe('sign-in', () => {
  it('registers a new wallet with proof of work, and refuses it without', async () => {
    const signer = privateKeySigner(newPrivateKey());
    const registration = { username: `sdk_pow_${process.pid}_${Date.now() % 1e6}` };
    const refused = signIn({ baseUrl: service.baseUrl, signer, registration });
    await expect(refused).rejects.toMatchObject({ status: 400, code: 'POW_REQUIRED' });

    const first = await signIn({
      baseUrl: service.baseUrl,
      signer,
      registration,
      powDifficultyBits: POW_BITS,
    });
    expect(first.isNewUser).toBe(true);
    expect(first.user.username).toBe(registration.username);
    expect(first.user.address).toBe((await signer.address()).toLowerCase());
  });

  it('signs a returning wallet in by template and by Sign-In with Ethereum', async () => {
    const { signer, address } = await newAccount();
    const byTemplate = await signIn({ baseUrl: service.baseUrl, signer });
    const bySiwe = await signIn({
      baseUrl: service.baseUrl,
      signer,
      siwe: { domain: 'localhost', uri: 'http://localhost/app/' },
    });
    for (const signedIn of [byTemplate, bySiwe]) {
      expect({ isNewUser: signedIn.isNewUser, address: signedIn.user.address }).toEqual({
        isNewUser: false,
        address,
      });
      await expect(signedIn.session.call('GET', '/auth/sessions')).resolves.toMatchObject({
        success: true,
      });
    }
  });
});

describe('token session', () => {
  it('refreshes once for concurrent calls with an expiring token', async () => {
    const { session } = await newAccount();
    // The same session, with its access token taken for expired.
    const expiring = new TokenSession(service.baseUrl, { ...session.tokens, accessExpiresAt: 0 });
    const rotations: string[] = [];
    expiring.onTokens((tokens) => rotations.push(tokens.refreshToken));
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => expiring.call('GET', '/auth/sessions')),
    );
    expect(answers).toEqual(Array(6).fill(expect.objectContaining({ success: true })));
    expect(rotations).toHaveLength(1);
    expect(rotations[0]).not.toBe(session.tokens.refreshToken);
  });

  it('ends the session when its refresh family was revoked by a replayed refresh token', async () => {
    const { session } = await newAccount();
    const stolen = session.tokens.refreshToken;
    await session.refresh();
    // Someone presents the already exchanged token: the service revokes the whole family.
    const replay = await fetch(`${service.baseUrl}/api/v1/auth/refresh`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refresh_token: stolen }),
    });
    expect(replay.status).toBe(401);

    const ended: SessionEndedError[] = [];
    session.onEnded((error) => ended.push(error));
    const call = session.call('GET', '/auth/sessions');
    await expect(call).rejects.toBeInstanceOf(SessionEndedError);
    await expect(session.call('GET', '/auth/sessions')).rejects.toBeInstanceOf(SessionEndedError);
    expect(ended).toHaveLength(1);
  });

  it('binds the refresh family to its non-extractable DPoP key', async () => {
    const { signer } = await newAccount();
    const { session } = await signIn({ baseUrl: service.baseUrl, signer, dpop: true });
    expect(session.dpopKey?.privateKey.extractable).toBe(false);
    await session.refresh();

    const refreshUrl = `${service.baseUrl}/api/v1/auth/refresh`;
    const attempt = (headers: Record<string, string>) =>
      fetch(refreshUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ refresh_token: session.tokens.refreshToken }),
      }).then(async (response) => ({ status: response.status, body: await response.json() }));
    const otherKey = await createDpopKey();
    const withoutProof: Record<string, string> = {};
    for (const headers of [withoutProof, { dpop: await dpopProof(otherKey, 'POST', refreshUrl) }])
      expect(await attempt(headers)).toMatchObject({
        status: 401,
        body: { code: 'INVALID_DPOP_PROOF' },
      });
    // The holder of the key still refreshes.
    await session.refresh();
    await expect(session.call('GET', '/auth/sessions')).resolves.toMatchObject({ success: true });
  });
});

describe('realtime and messaging', () => {
  it('delivers live, resumes from the last event without loss or duplicate, and resyncs', async () => {
    const alice = await newAccount();
    const bob = await newAccount();
    const first = realtime(bob.session);
    const state: { value?: string } = {};
    opened(state)(first);
    const live = collectingNewMessages(first);
    await passesEventually(async () => expect(state.value).toBe('open'), 5000, 20);

    const sent = [await alice.messenger.sendText({ peer: bob.address }, 'one')];
    sent.push(await alice.messenger.sendText({ peer: bob.address }, 'two'));
    await passesEventually(async () => expect(live).toHaveLength(2), 5000, 20);
    first.stop();

    sent.push(await alice.messenger.sendText({ peer: bob.address }, 'three'));
    sent.push(await alice.messenger.sendText({ peer: bob.address }, 'four'));
    const resumed = realtime(bob.session, first.lastPosition);
    const replayed = collectingNewMessages(resumed);
    sent.push(await alice.messenger.sendText({ peer: bob.address }, 'five'));
    await passesEventually(async () => expect(replayed).toHaveLength(3), 5000, 20);
    resumed.stop();
    expect([...live, ...replayed]).toEqual(sent.map(({ message }) => message.id));

    // Bob opens what he got, through the cipher.
    const texts = await Promise.all(
      sent.map(async ({ message }) => (await bob.messenger.open(message)).content),
    );
    expect(texts.map((content) => content?.type === 'text' && content.text)).toEqual([
      'one',
      'two',
      'three',
      'four',
      'five',
    ]);

    // A position the service cannot replay: told to resync, then on the service's position.
    const stale = realtime(bob.session, { stream: 'not-a-stream', seq: 3 });
    const resyncs: string[] = [];
    stale.on('resync', ({ reason }) => void resyncs.push(reason));
    stale.start();
    await passesEventually(async () => expect(resyncs).toHaveLength(1), 5000, 20);
    stale.stop();
    expect(stale.lastPosition).toEqual({
      stream: first.lastPosition!.stream,
      seq: expect.any(Number),
    });
    expect(stale.lastPosition!.seq).toBeGreaterThanOrEqual(first.lastPosition!.seq);
  });

  it('catches a conversation up after a cursor, and a group conversation too', async () => {
    const alice = await newAccount();
    const bob = await newAccount();
    await alice.messenger.sendText({ peer: bob.address }, 'before');
    const seen = await bob.messenger.history({ peer: alice.address });
    expect(seen.messages.map(({ content }) => content)).toEqual([{ type: 'text', text: 'before' }]);
    await alice.messenger.sendText({ peer: bob.address }, 'after');
    const caughtUp = await bob.messenger.history({ peer: alice.address }, seen.afterCursor);
    expect(caughtUp.messages.map(({ content }) => content)).toEqual([
      { type: 'text', text: 'after' },
    ]);

    const { group } = await createGroup(alice.session, 'sdk group', [bob.address]);
    await alice.messenger.sendText({ groupId: group!.id }, 'hello group');
    const groupHistory = await bob.messenger.history({ groupId: group!.id });
    expect(groupHistory.messages.map(({ content }) => content)).toContainEqual({
      type: 'text',
      text: 'hello group',
    });
  });

  it('sends once when the first answer was lost: the retry carries the same message', async () => {
    const alice = await newAccount();
    const bob = await newAccount();
    /** The alice session, losing the answer of its first send after the service stored it. */
    class LosingFirstAnswer extends TokenSession {
      lost = 0;
      override async send(method: HttpMethod, path: string, options?: SendOptions) {
        const response = await super.send(method, path, options);
        if (path === '/send' && this.lost++ === 0)
          throw new ApiError(0, 'NETWORK_ERROR', 'connection reset');
        return response;
      }
    }
    const flaky = new LosingFirstAnswer(service.baseUrl, alice.session.tokens);
    const messenger = new Messenger(flaky, sharedKeyCipher(alice.address), alice.address);
    const sent = await messenger.sendText({ peer: bob.address }, 'exactly once');
    expect(flaky.lost).toBe(2);
    const history = await bob.messenger.history({ peer: alice.address });
    expect(history.messages.map(({ message }) => message.id)).toEqual([sent.message.id]);
  });

  it('uploads an image encrypted and streamed; the recipient downloads and opens it', async () => {
    const alice = await newAccount();
    const bob = await newAccount();
    const image = new Uint8Array(randomBytes(200_000));
    const sent = await alice.messenger.sendImage({ peer: bob.address }, image, 'image/png', 'pic');
    const [received] = (await bob.messenger.history({ peer: alice.address })).messages;
    expect(received!.message.mediaId).toBe(sent.message.mediaId);
    const content = received!.content;
    if (content?.type !== 'image') throw new Error(`not an image: ${JSON.stringify(content)}`);
    expect(content.caption).toBe('pic');
    const stored = await fetch(`${service.baseUrl}/api/v1/media/${received!.message.mediaId}`, {
      headers: { authorization: `Bearer ${bob.session.tokens.accessToken}` },
    });
    // The service holds ciphertext (plaintext plus the GCM tag), not the image.
    const blob = new Uint8Array(await stored.arrayBuffer());
    expect(blob.length).toBe(image.length + 16);
    expect(Buffer.from(blob).includes(Buffer.from(image.subarray(0, 64)))).toBe(false);
    const openedImage = await bob.messenger.openImage(
      received!.message.mediaId,
      content.attachment,
    );
    // Buffer.equals, not toEqual: jest compares 200 kB element by element in seconds.
    expect(Buffer.from(openedImage).equals(image)).toBe(true);
  });
});
