/**
 * Abuse reports under end-to-end encryption, end to end over real HTTP, gRPC and /ws
 * (moderation.proto): franked sends in a direct chat, a group and a channel carry the server's
 * tag, which the test verifies with the published key by its own implementation
 * (support/franking-client.ts, node:crypto); a report with the opened plaintext and key is
 * verified, a tampered plaintext or key is refused, a message the reporter never received or of
 * someone else's conversation is 404, an unfranked one is recorded unverified; the operator
 * routes need `admin:review_reports`; a suspension refuses sign-in, ends the sessions (REST,
 * gRPC, /ws) and an unsuspension lets the account back in.
 */
import { serviceForThisFile } from '../support/service-for-tests.js';
import { expectFailure, expectOk } from '../support/session-api.js';
import { bearerMetadata, grpc, grpcClient, unary } from '../support/grpc-client.js';
import { RealtimeClient } from '../support/realtime-client.js';
import { connectWs } from '../support/session-ws.js';
import { TestUser, bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';
import { frank, tagVerifies } from './support/franking-client.js';
import type { DeliveredMessage, Franked } from './support/franking-client.js';
import { dataWithReviewer } from './support/reviewer.js';

const reviewerUser = new TestUser();
const { service, api } = serviceForThisFile(
  {},
  { prepareDataDir: () => dataWithReviewer({}, reviewerUser) },
);

let reviewer: SignedIn;
let alice: SignedIn;
let bob: SignedIn;
let carol: SignedIn;
let publicKey: string;
let counter = 0;
const newId = () => `rep-${Date.now()}-${++counter}`;
const b64 = (bytes: Buffer) => bytes.toString('base64');

beforeAll(async () => {
  [reviewer, alice, bob, carol] = await Promise.all([
    signIn(service.baseUrl, reviewerUser, 'sign-in'),
    signIn(service.baseUrl),
    signIn(service.baseUrl),
    signIn(service.baseUrl),
  ]);
  const keys = expectOk(await api.get('/api/v1/moderation/franking-keys'));
  expect(keys.keys).toEqual([
    {
      key_id: expect.any(String),
      algorithm: 'Ed25519',
      public_key: expect.any(String),
      current: true,
    },
  ]);
  publicKey = keys.keys[0].public_key;
});

const sendFranked = async (from: SignedIn, target: Record<string, string>, franked: Franked) =>
  expectOk(
    await api.post(
      '/api/v1/send',
      {
        client_message_id: newId(),
        ciphertext: b64(franked.ciphertext),
        franking_commitment: b64(franked.commitment),
        ...target,
      },
      bearer(from),
    ),
  ).chat_message as DeliveredMessage;

const report = (from: SignedIn, body: Record<string, unknown>) =>
  api.post('/api/v1/moderation/reports/messages', { reason: 'harassment', ...body }, bearer(from));

describe('a franked direct message', () => {
  it('is tagged at acceptance, delivered over /ws with the tag, and the tag verifies with the published key', async () => {
    const socket = await RealtimeClient.connect(service.baseUrl, service.baseUrl, bob.accessToken);
    try {
      const franked = frank('you will regret this');
      const sent = await sendFranked(alice, { recipient_address: bob.user.address }, franked);
      expect(Buffer.from(sent.franking_commitment, 'base64')).toEqual(franked.commitment);
      expect(tagVerifies(sent, publicKey)).toBe(true);
      const delivered = (await socket.next('message.new', (f) => f.data.message.id === sent.id))
        .data.message as unknown as DeliveredMessage;
      expect(delivered).toMatchObject({
        franking_commitment: sent.franking_commitment,
        franking_tag: sent.franking_tag,
        franking_key_id: sent.franking_key_id,
      });
      expect(tagVerifies(delivered, publicKey)).toBe(true);
      // The tag binds the sender and the time: the same tag does not verify for another sender.
      expect(tagVerifies({ ...delivered, sender_address: carol.user.address }, publicKey)).toBe(
        false,
      );
    } finally {
      socket.close();
    }
  });

  it('is reported verified with its plaintext and key; a tampered plaintext or key is refused and nothing recorded', async () => {
    const franked = frank('send me 1 ETH or else');
    const sent = await sendFranked(alice, { recipient_address: bob.user.address }, franked);
    const about = { peer_address: alice.user.address, message_id: sent.id };

    expectFailure(
      await report(bob, {
        ...about,
        plaintext: b64(Buffer.from('something alice never said')),
        franking_key: b64(franked.key),
      }),
      400,
      'FRANKING_MISMATCH',
    );
    const otherKey = frank('x').key;
    expectFailure(
      await report(bob, {
        ...about,
        plaintext: b64(franked.plaintext),
        franking_key: b64(otherKey),
      }),
      400,
      'FRANKING_MISMATCH',
    );
    expectFailure(await report(bob, about), 400, 'INVALID_ARGUMENT');

    const accepted = expectOk(
      await report(bob, {
        ...about,
        plaintext: b64(franked.plaintext),
        franking_key: b64(franked.key),
      }),
    );
    expect(accepted).toMatchObject({ verified: true, report_id: expect.any(String) });
    expectFailure(
      await report(bob, {
        ...about,
        plaintext: b64(franked.plaintext),
        franking_key: b64(franked.key),
      }),
      409,
      'CONFLICT',
    );

    const listed = expectOk(await api.get('/api/v1/admin/reports?status=open', bearer(reviewer)));
    expect(listed.reports.find((r: { id: string }) => r.id === accepted.report_id)).toMatchObject({
      kind: 'message',
      reporter_address: bob.user.address.toLowerCase(),
      reported_address: alice.user.address.toLowerCase(),
      reason: 'harassment',
      message_id: sent.id,
      conversation_id: sent.conversation_id,
      plaintext: b64(franked.plaintext),
      verified: true,
      status: 'open',
    });
    // The tampered attempts left nothing behind.
    expect(
      listed.reports.filter((r: { message_id: string }) => r.message_id === sent.id),
    ).toHaveLength(1);
  });

  it('is refused for anyone who never received it: the sender, a stranger, another conversation', async () => {
    const franked = frank('only for bob');
    const sent = await sendFranked(alice, { recipient_address: bob.user.address }, franked);
    const opened = { plaintext: b64(franked.plaintext), franking_key: b64(franked.key) };
    expectFailure(
      await report(carol, { peer_address: alice.user.address, message_id: sent.id, ...opened }),
      404,
      'NOT_FOUND',
    );
    expectFailure(
      await report(carol, { peer_address: bob.user.address, message_id: sent.id, ...opened }),
      404,
      'NOT_FOUND',
    );
    expectFailure(
      await report(alice, { peer_address: bob.user.address, message_id: sent.id, ...opened }),
      400,
      'INVALID_ARGUMENT',
    );
  });
});

it('an unfranked message is reported as unverified, with what the reporter claims', async () => {
  const sent = expectOk(
    await api.post(
      '/api/v1/send',
      { client_message_id: newId(), recipient_address: bob.user.address, ciphertext: 'AAEC' },
      bearer(alice),
    ),
  ).chat_message;
  expect(sent.franking_tag).toBe('');
  const claimed = b64(Buffer.from('a claim nobody can check'));
  const accepted = expectOk(
    await report(bob, {
      peer_address: alice.user.address,
      message_id: sent.id,
      reason: 'spam',
      plaintext: claimed,
    }),
  );
  expect(accepted.verified).toBe(false);
});

it('a franked group message sent over gRPC is reported verified by a member, and 404 for a non-member', async () => {
  const group = expectOk(
    await api.post(
      '/api/v1/groups/create',
      { name: 'Franked', member_addresses: [bob.user.address] },
      bearer(alice),
    ),
  ).group;
  const messages = grpcClient(
    service.grpcAddress,
    'service/v1/messages.proto',
    'service.v1.MessagesService',
  );
  const moderation = grpcClient(
    service.grpcAddress,
    'service/v1/moderation.proto',
    'service.v1.ModerationService',
  );
  try {
    const franked = frank('group abuse');
    const sent = await unary<{ chat_message: { id: string; franking_tag: Buffer } }>(
      messages,
      'SendMessage',
      {
        client_message_id: newId(),
        group_id: group.id,
        ciphertext: franked.ciphertext,
        franking_commitment: franked.commitment,
      },
      bearerMetadata(alice.accessToken),
    );
    expect(sent.chat_message.franking_tag).toHaveLength(64);
    const request = {
      group_id: group.id,
      message_id: sent.chat_message.id,
      reason: 'harassment',
      plaintext: franked.plaintext,
      franking_key: franked.key,
    };
    await expect(
      unary(moderation, 'ReportMessage', request, bearerMetadata(carol.accessToken)),
    ).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
    await expect(
      unary(
        moderation,
        'ReportMessage',
        { ...request, plaintext: Buffer.from('forged') },
        bearerMetadata(bob.accessToken),
      ),
    ).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
    expect(
      await unary(moderation, 'ReportMessage', request, bearerMetadata(bob.accessToken)),
    ).toMatchObject({ verified: true });
  } finally {
    messages.close();
    moderation.close();
  }
});

it('a franked channel post is reported verified by a follower', async () => {
  const channel = expectOk(
    await api.post('/api/v1/channels', { name: 'Franked news', is_public: true }, bearer(alice)),
  ).channel;
  expectOk(await api.post(`/api/v1/channels/${channel.id}/subscribe`, {}, bearer(bob)));
  const franked = frank('channel abuse');
  const post = await sendFranked(alice, { channel_id: channel.id }, franked);
  expect(tagVerifies(post, publicKey)).toBe(true);
  expect(
    expectOk(
      await report(bob, {
        channel_id: channel.id,
        message_id: post.id,
        plaintext: b64(franked.plaintext),
        franking_key: b64(franked.key),
      }),
    ).verified,
  ).toBe(true);
});

describe('operator review', () => {
  it('needs admin:review_reports on every operator route (403 otherwise)', async () => {
    const report = expectOk(
      await api.post(
        '/api/v1/moderation/reports/accounts',
        { address: alice.user.address, reason: 'impersonation' },
        bearer(carol),
      ),
    );
    expectFailure(await api.get('/api/v1/admin/reports', bearer(carol)), 403, 'FORBIDDEN');
    expectFailure(
      await api.post(
        `/api/v1/admin/reports/${report.report_id}/resolve`,
        { resolution: 'dismissed' },
        bearer(carol),
      ),
      403,
      'FORBIDDEN',
    );
    expectFailure(
      await api.post(
        `/api/v1/admin/accounts/${bob.user.address}/moderation`,
        { action: 'warn' },
        bearer(carol),
      ),
      403,
      'FORBIDDEN',
    );
    const resolved = expectOk(
      await api.post(
        `/api/v1/admin/reports/${report.report_id}/resolve`,
        { resolution: 'dismissed', note: 'parody account' },
        bearer(reviewer),
      ),
    );
    expect(resolved.report).toMatchObject({
      status: 'resolved',
      resolution: 'dismissed',
      resolved_by: reviewer.user.address.toLowerCase(),
      note: 'parody account',
    });
    expectFailure(
      await api.post(
        `/api/v1/admin/reports/${report.report_id}/resolve`,
        { resolution: 'actioned' },
        bearer(reviewer),
      ),
      409,
      'CONFLICT',
    );
  });

  it('a suspension refuses sign-in, ends every session (REST, gRPC, open and new /ws) and an unsuspension ends it', async () => {
    const target = new TestUser();
    const first = await signIn(service.baseUrl, target);
    const socket = await RealtimeClient.connect(
      service.baseUrl,
      service.baseUrl,
      first.accessToken,
    );
    const moderated = expectOk(
      await api.post(
        `/api/v1/admin/accounts/${target.address}/moderation`,
        { action: 'suspend', duration_seconds: 3600, report_id: 'r-1' },
        bearer(reviewer),
      ),
    );
    expect(moderated).toMatchObject({ sessions_ended: 1, suspended_until: expect.any(String) });
    expect(await socket.waitClosed(3000)).toBe(4401);

    expectFailure(await api.listSessions(first.accessToken), 401, 'UNAUTHORIZED');
    const messages = grpcClient(
      service.grpcAddress,
      'service/v1/messages.proto',
      'service.v1.MessagesService',
    );
    try {
      await expect(
        unary(
          messages,
          'SendMessage',
          {
            client_message_id: newId(),
            recipient_address: bob.user.address,
            ciphertext: Buffer.from('x'),
          },
          bearerMetadata(first.accessToken),
        ),
      ).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED });
    } finally {
      messages.close();
    }
    const ws = await connectWs(service.baseUrl, { protocols: ['bearer', first.accessToken] });
    expect(ws).toMatchObject({ opened: false, closeCode: 4401 });
    await expect(signIn(service.baseUrl, target, 'sign-in')).rejects.toThrow(
      /403.*ACCOUNT_SUSPENDED/,
    );

    expectOk(
      await api.post(
        `/api/v1/admin/accounts/${target.address}/moderation`,
        { action: 'unsuspend' },
        bearer(reviewer),
      ),
    );
    const again = await signIn(service.baseUrl, target, 'sign-in');
    expectOk(
      await api.post(
        '/api/v1/send',
        { client_message_id: newId(), recipient_address: bob.user.address, ciphertext: 'AAEC' },
        bearer(again),
      ),
    );
  });
});
