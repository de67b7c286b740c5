/**
 * The SDK's end-to-end encryption: the MessageCipher the messaging code encrypts and decrypts
 * through, plus what only this module can do — keep the device's key bundle published and topped
 * up, and send and open sealed-sender messages.
 *
 *   const e2ee = await createMessageCipher({ api, signer, store, serviceName: 'Service' });
 *   await e2ee.syncKeys(); // after sign-in, and from time to time
 */
import type { ApiCaller } from '../api-caller.js';
import type { MessageCipher } from '../message-cipher.js';
import { bytesToHex, fromBase64, randomBytes, toBase64 } from './bytes.js';
import { decodeDirectContent, encodeDirectContent } from './direct-content.js';
import { DirectSessions } from './direct-sessions.js';
import { E2eeError } from './e2ee-error.js';
import { GroupSessions } from './group-sessions.js';
import { KeyBundleDirectory } from './key-bundle-directory.js';
import { StateRecords } from './key-store.js';
import type { KeyStore } from './key-store.js';
import { LocalIdentity } from './local-identity.js';
import { openSealedMessage, sealMessage } from './sealed-sender.js';
import type { SenderCertificate, TrustRootKey } from './sender-certificate.js';
import { SerialQueue } from './serial-queue.js';
import type { WalletSigner } from './wallet-signer.js';

export interface E2eeOptions {
  /** The signed-in account's REST calls (the session layer's ApiCaller). */
  api: ApiCaller;
  /** The account's wallet: signs the key binding once per device key (EIP-191). */
  signer: WalletSigner;
  /** Where keys and sessions are kept (MemoryKeyStore in Node; a persistent store in browsers). */
  store: KeyStore;
  /** The service's brand name, as in its sign-in templates (keys.proto's `<SERVICE_NAME>`). */
  serviceName: string;
  /** The service's sender-certificate keys the app pins; sealed messages are refused without. */
  trustRoot?: readonly TrustRootKey[];
  /** The clock certificates are checked against (tests set it). */
  now?: () => Date;
}

export interface E2eeClient extends MessageCipher {
  /**
   * Publishes this device's key bundle if the service has none or another one (first run, a
   * reinstall), else tops up one-time prekeys; resolves with how many are available.
   */
  syncKeys(): Promise<number>;
  /** Publishes the bundle again with a new signed prekey (rotation); one-time prekeys are replaced. */
  rotateSignedPreKey(): Promise<void>;
  /** Encrypts `plaintext` for `recipient` and relays it sealed (`POST /relay/sealed-v3`). */
  sendSealed(recipient: string, plaintext: Uint8Array): Promise<{ message_id: string }>;
  /**
   * Opens a delivered sealed payload: the certified sender and the plaintext (`null` for protocol
   * state, as `decryptDirect`).
   */
  openSealed(payload: Uint8Array): Promise<{ sender: string; plaintext: Uint8Array | null }>;
}

/** Certificates are renewed this long before they expire (they are valid 24 hours). */
const CERTIFICATE_RENEWAL_MS = 60 * 60 * 1000;

const clientMessageId = () => bytesToHex(randomBytes(16));

const isNotFound = (error: unknown) =>
  typeof error === 'object' && error !== null && (error as { status?: unknown }).status === 404;

export async function createMessageCipher(options: E2eeOptions): Promise<E2eeClient> {
  const { api, signer, serviceName } = options;
  const self = signer.address.toLowerCase();
  const now = options.now ?? (() => new Date());
  const records = new StateRecords(options.store);
  const identity = await LocalIdentity.loadOrCreate(records);
  const directory = new KeyBundleDirectory(api, signer, identity, serviceName);
  const direct = new DirectSessions(records, identity, directory);
  const groups = new GroupSessions(records, self);
  const queue = new SerialQueue();
  let certificate: { value: SenderCertificate; expiresAt: number } | undefined;

  const encryptDirect = (peer: string, plaintext: Uint8Array) =>
    direct.encrypt(peer, encodeDirectContent({ kind: 'payload', payload: plaintext }));

  const decryptDirect = async (sender: string, ciphertext: Uint8Array) => {
    const content = decodeDirectContent(await direct.decrypt(sender, ciphertext));
    if (content.kind === 'payload') return content.payload;
    await groups.receiveDistribution(sender, content.distribution);
    return null;
  };

  const senderCertificate = async (): Promise<SenderCertificate> => {
    if (certificate && certificate.expiresAt - CERTIFICATE_RENEWAL_MS > now().getTime())
      return certificate.value;
    const issued = await api.call<{
      certificate: string;
      signature: string;
      key_id: string;
      expires_at: string;
    }>('POST', '/relay/sender-cert', {});
    certificate = {
      value: {
        certificate: fromBase64(issued.certificate),
        signature: fromBase64(issued.signature),
        keyId: issued.key_id,
      },
      expiresAt: new Date(issued.expires_at).getTime(),
    };
    return certificate.value;
  };

  return {
    encryptDirect: (peer, plaintext) => queue.run(() => encryptDirect(peer, plaintext)),

    decryptDirect: (sender, ciphertext) => queue.run(() => decryptDirect(sender, ciphertext)),

    encryptGroup: (groupId, members, plaintext) =>
      queue.run(() =>
        groups.encrypt(groupId, members, plaintext, async (member, distribution) => {
          const ciphertext = await direct.encrypt(
            member,
            encodeDirectContent({ kind: 'distribution', distribution }),
          );
          await api.call('POST', '/send', {
            client_message_id: clientMessageId(),
            recipient_address: member,
            ciphertext: toBase64(ciphertext),
          });
        }),
      ),

    decryptGroup: (groupId, sender, ciphertext) =>
      queue.run(() => groups.decrypt(groupId, sender, ciphertext)),

    syncKeys: () =>
      queue.run(async () => {
        const published = await api
          .call<{
            keyBundle: { identityKey: string };
            one_time_pre_key_count: number;
          }>('GET', '/keys')
          .catch((error: unknown) => {
            if (isNotFound(error)) return undefined;
            throw error;
          });
        if (published?.keyBundle.identityKey !== toBase64(identity.identityKey.publicKey))
          return directory.publish();
        return directory.topUp(published.one_time_pre_key_count);
      }),

    rotateSignedPreKey: () =>
      queue.run(async () => {
        await directory.publish();
      }),

    sendSealed: (recipient, plaintext) =>
      queue.run(async () => {
        const message = await encryptDirect(recipient, plaintext);
        const recipientIdentity = await direct.peerIdentityKey(recipient);
        const payload = sealMessage(
          identity.identityKey,
          await senderCertificate(),
          recipientIdentity,
          message,
        );
        return api.call<{ message_id: string }>('POST', '/relay/sealed-v3', {
          recipient_address: recipient,
          sealed_payload: toBase64(payload),
          client_message_id: clientMessageId(),
        });
      }),

    openSealed: (payload) =>
      queue.run(async () => {
        if (!options.trustRoot?.length)
          throw new E2eeError('INVALID_CERTIFICATE', 'no trust root is pinned');
        const opened = openSealedMessage(identity.identityKey, payload, options.trustRoot, now());
        return {
          sender: opened.sender,
          plaintext: await decryptDirect(opened.sender, opened.message),
        };
      }),
  };
}
