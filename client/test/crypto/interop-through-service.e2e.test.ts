/**
 * Two (and three) SDK instances talking through a real running service: each signs in with its
 * wallet, publishes its key bundle, and they exchange direct, group and sealed-sender messages
 * that the service only stores and relays. What the service holds is checked to be ciphertext.
 */
import { createPublicKey, verify } from 'node:crypto';
import { verifyMessage } from 'viem';
import { createMessageCipher, E2eeError, MemoryKeyStore } from '../../src/crypto/index.js';
import type { E2eeClient, KeyStore, TrustRootKey } from '../../src/crypto/index.js';
import { KeyBundleDirectory } from '../../src/crypto/key-bundle-directory.js';
import { StateRecords } from '../../src/crypto/key-store.js';
import { LocalIdentity } from '../../src/crypto/local-identity.js';
import { directWith, groupHistory } from './support/conversation-reader.js';
import type { ConversationReader } from './support/conversation-reader.js';
import { startRunningService } from './support/running-service.js';
import type { RunningService } from './support/running-service.js';
import { nextSealedPayload } from './support/sealed-inbox.js';
import { SERVICE_NAME, signedInAccount } from './support/signed-in-account.js';
import type { SignedInAccount } from './support/signed-in-account.js';

const text = (value: string) => new TextEncoder().encode(value);
const read = (bytes: Uint8Array | null) => (bytes ? new TextDecoder().decode(bytes) : null);
const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const fromBase64 = (value: string) => new Uint8Array(Buffer.from(value, 'base64'));

interface Device extends SignedInAccount {
  cipher: E2eeClient;
  store: KeyStore;
}

let service: RunningService;
let trustRoot: TrustRootKey[];

beforeAll(async () => {
  service = await startRunningService();
  const root = await fetch(`${service.baseUrl}/api/v1/relay/trust-root`);
  trustRoot = ((await root.json()) as { keys: TrustRootKey[] }).keys;
}, 60_000);

afterAll(() => service?.stop());

/** A signed-in account's SDK instance over `store` (a fresh one: a new install), keys synced. */
async function device(
  account?: SignedInAccount,
  store: KeyStore = new MemoryKeyStore(),
): Promise<Device> {
  const signedIn = account ?? (await signedInAccount(service.baseUrl));
  const cipher = await createMessageCipher({
    api: signedIn.api,
    signer: signedIn.signer,
    store,
    serviceName: SERVICE_NAME,
    trustRoot,
  });
  await cipher.syncKeys();
  return { ...signedIn, cipher, store };
}

async function sendDirect(from: Device, to: Device, plaintext: string): Promise<void> {
  await from.api.call('POST', '/send', {
    client_message_id: `m${Date.now()}${Math.floor(Math.random() * 1e9)}`,
    recipient_address: to.address,
    ciphertext: base64(await from.cipher.encryptDirect(to.address, text(plaintext))),
  });
}

/** Opens every unread message of `reader` that `who` did not send; the texts, null for protocol state. */
async function openUnread(reader: ConversationReader, who: Device): Promise<(string | null)[]> {
  const opened: (string | null)[] = [];
  for (const message of await reader.unread())
    if (message.sender_address !== who.address)
      opened.push(
        read(
          await who.cipher.decryptDirect(message.sender_address, fromBase64(message.ciphertext)),
        ),
      );
  return opened;
}

describe('E2EE between SDK instances through the running service', () => {
  it('publishes a bundle whose chain of trust verifies with independent libraries', async () => {
    const alice = await device();
    const own = await alice.api.call<{
      keyBundle: {
        ed25519PublicKey: string;
        identityKey: string;
        signedPreKey: { publicKey: string; signature: string };
        walletBinding: { signature: `0x${string}`; timestamp: number };
      };
      one_time_pre_key_count: number;
    }>('GET', '/keys');
    const { keyBundle } = own;
    const binding = [
      `${SERVICE_NAME} Key Binding`,
      '',
      'I confirm that this wallet owns the end-to-end encryption key below.',
      '',
      `Wallet: ${alice.address}`,
      `Ed25519 Public Key: ${keyBundle.ed25519PublicKey}`,
      `Timestamp: ${keyBundle.walletBinding.timestamp}`,
    ].join('\n');
    expect(
      await verifyMessage({
        address: alice.address as `0x${string}`,
        message: binding,
        signature: keyBundle.walletBinding.signature,
      }),
    ).toBe(true);
    const ed25519 = createPublicKey({
      key: {
        kty: 'OKP',
        crv: 'Ed25519',
        x: Buffer.from(keyBundle.ed25519PublicKey, 'base64').toString('base64url'),
      },
      format: 'jwk',
    });
    expect(
      verify(
        null,
        Buffer.from(keyBundle.signedPreKey.publicKey, 'base64'),
        ed25519,
        Buffer.from(keyBundle.signedPreKey.signature, 'base64'),
      ),
    ).toBe(true);
    expect(own.one_time_pre_key_count).toBe(100);
    // A second sync finds the bundle published and leaves it: one read, no second wallet prompt.
    const prompts = alice.api.sent.length;
    expect(await alice.cipher.syncKeys()).toBe(100);
    expect(alice.api.sent.slice(prompts).map((call) => call.method)).toEqual(['GET']);
  });

  it('delivers direct messages both ways; the service stores only ciphertext', async () => {
    const [alice, bob] = [await device(), await device()];
    await sendDirect(alice, bob, 'hello bob, this is secret');
    await sendDirect(alice, bob, 'and a second one');
    const bobReads = directWith(bob.api, alice.address);
    expect(await openUnread(bobReads, bob)).toEqual([
      'hello bob, this is secret',
      'and a second one',
    ]);
    await sendDirect(bob, alice, 'hi alice');
    const aliceReads = directWith(alice.api, bob.address);
    expect(await openUnread(aliceReads, alice)).toEqual(['hi alice']);
    await sendDirect(alice, bob, 'after the ratchet turned');
    expect(await openUnread(bobReads, bob)).toEqual(['after the ratchet turned']);

    const stored = await directWith(bob.api, alice.address).unread();
    expect(stored).toHaveLength(4);
    for (const message of stored) {
      const bytes = Buffer.from(message.ciphertext, 'base64');
      for (const secret of ['hello bob', 'second', 'hi alice', 'ratchet'])
        expect(bytes.includes(Buffer.from(secret))).toBe(false);
    }
    // Alice's session took one of Bob's one-time prekeys, used once and deleted on both sides.
    const bobsKeys = await bob.api.call<{ one_time_pre_key_count: number }>('GET', '/keys');
    expect(bobsKeys.one_time_pre_key_count).toBe(99);
  });

  it('a group of three reads each other through sender keys distributed over 1:1 sessions', async () => {
    const [alice, bob, carol] = [await device(), await device(), await device()];
    const created = await alice.api.call<{ group: { id: string } }>('POST', '/groups/create', {
      name: 'e2ee group',
      member_addresses: [bob.address, carol.address],
    });
    const groupId = created.group.id;
    const members = [alice.address, bob.address, carol.address];
    const sendGroup = async (from: Device, plaintext: string) =>
      from.api.call('POST', '/send', {
        client_message_id: `g${Date.now()}${Math.floor(Math.random() * 1e9)}`,
        group_id: groupId,
        ciphertext: base64(await from.cipher.encryptGroup(groupId, members, text(plaintext))),
      });
    await sendGroup(alice, 'hello group');
    await sendGroup(alice, 'second from alice');
    await sendGroup(bob, 'bob here');

    for (const reader of [bob, carol]) {
      // The distribution arrives as a direct message that opens to nothing to show.
      expect(await openUnread(directWith(reader.api, alice.address), reader)).toEqual([null]);
    }
    expect(await openUnread(directWith(carol.api, bob.address), carol)).toEqual([null]);
    expect(await openUnread(directWith(alice.api, bob.address), alice)).toEqual([null]);

    const opened = async (who: Device) => {
      const history = await groupHistory(who.api, groupId).unread();
      const texts: string[] = [];
      for (const message of history.filter((m) => m.ciphertext && m.sender_address !== who.address))
        texts.push(
          read(
            await who.cipher.decryptGroup(
              groupId,
              message.sender_address,
              fromBase64(message.ciphertext),
            ),
          )!,
        );
      return texts;
    };
    expect(await opened(carol)).toEqual(['hello group', 'second from alice', 'bob here']);
    expect(await opened(bob)).toEqual(['hello group', 'second from alice']);
    expect(await opened(alice)).toEqual(['bob here']);

    // A second message from Alice needs no new distribution.
    const sentBefore = alice.api.sent.length;
    await sendGroup(alice, 'no new distribution');
    expect(alice.api.sent.slice(sentBefore).map((call) => call.path)).toEqual(['/send']);
  });

  it('relays a sealed-sender message the recipient opens and attributes by its certificate', async () => {
    const [alice, bob] = [await device(), await device()];
    await alice.cipher.sendSealed(bob.address, text('sealed hello'));
    const payload = await nextSealedPayload(service.baseUrl, bob.accessToken);
    expect(Buffer.from(payload, 'base64').includes(Buffer.from(alice.address.slice(2)))).toBe(
      false,
    );
    const opened = await bob.cipher.openSealed(fromBase64(payload));
    expect({ sender: opened.sender, text: read(opened.plaintext) }).toEqual({
      sender: alice.address,
      text: 'sealed hello',
    });
  });

  it('tops up one-time prekeys once fewer than 20 are left, and not before', async () => {
    const account = await signedInAccount(service.baseUrl);
    const directory = new KeyBundleDirectory(
      account.api,
      account.signer,
      await LocalIdentity.loadOrCreate(new StateRecords(new MemoryKeyStore())),
      SERVICE_NAME,
    );
    await directory.publish(3);
    expect(await directory.topUp()).toBe(103);
    const own = await account.api.call<{ one_time_pre_key_count: number }>('GET', '/keys');
    expect(own.one_time_pre_key_count).toBe(103);
    const calls = account.api.sent.length;
    expect(await directory.topUp()).toBe(103);
    expect(account.api.sent.slice(calls).map((call) => call.path)).toEqual(['/keys']);
  });

  it("continues a session from the device's stored state after a restart", async () => {
    const [alice, bob] = [await device(), await device()];
    await sendDirect(alice, bob, 'before the restart');
    const bobReads = directWith(bob.api, alice.address);
    expect(await openUnread(bobReads, bob)).toEqual(['before the restart']);
    const published = bob.api.sent.length;
    const restarted = await device(bob, bob.store);
    expect(restarted.api.sent.slice(published).map((call) => call.method)).toEqual(['GET']);
    await sendDirect(alice, restarted, 'after the restart');
    expect(await openUnread(bobReads, restarted)).toEqual(['after the restart']);
  });

  it('refuses a ciphertext altered in transit, and still opens the genuine one', async () => {
    const [alice, bob] = [await device(), await device()];
    const genuine = await alice.cipher.encryptDirect(bob.address, text('genuine'));
    const altered = genuine.slice();
    altered[altered.length - 1]! ^= 0x01;
    await expect(bob.cipher.decryptDirect(alice.address, altered)).rejects.toThrow(E2eeError);
    expect(read(await bob.cipher.decryptDirect(alice.address, genuine))).toBe('genuine');
  });
});
