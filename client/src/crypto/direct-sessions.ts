/**
 * 1:1 sessions: X3DH to start one, the Double Ratchet for every message, one session per peer
 * address kept in the KeyStore. The initiator sends PreKey messages (X3DH fields plus a ratchet
 * message) until the peer's first reply shows the session was made; then plain Ratchet messages.
 *
 * A peer's identity key is trusted when their key bundle, verified back to their wallet, shows
 * it: on first contact (either direction) and whenever a new session brings another identity
 * key (a reinstall). Checking an incoming session's key fetches the sender's bundle, which
 * takes one of their one-time prekeys.
 */
import { equalBytes } from './bytes.js';
import {
  initiatorState,
  ratchetDecrypt,
  ratchetEncrypt,
  responderState,
} from './double-ratchet.js';
import type { RatchetState } from './double-ratchet.js';
import { E2eeError } from './e2ee-error.js';
import type { KeyBundleDirectory } from './key-bundle-directory.js';
import type { StateRecords } from './key-store.js';
import type { LocalIdentity } from './local-identity.js';
import { MessageType, envelope, openEnvelope } from './wire-format.js';
import type { ByteReader } from './wire.js';
import { x3dhInitiate, x3dhRespond } from './x3dh.js';

interface PreKeyFields {
  identityKey: Uint8Array;
  ephemeralKey: Uint8Array;
  signedPreKeyId: number;
  /** 0: the bundle had no one-time prekey left. */
  oneTimePreKeyId: number;
}

interface SessionRecord {
  peerIdentityKey: Uint8Array;
  ratchet: RatchetState;
  /** The X3DH fields: sent with every message until the peer first replies (initiator). */
  pendingPreKey?: PreKeyFields;
  /** The X3DH ephemeral key the session was made from (responder): a repeated PreKey message reuses it. */
  baseKey?: Uint8Array;
}

const sessionKey = (peer: string) => `session:${peer.toLowerCase()}`;
const trustedKey = (peer: string) => `peer-identity:${peer.toLowerCase()}`;

export class DirectSessions {
  constructor(
    private readonly records: StateRecords,
    private readonly identity: LocalIdentity,
    private readonly directory: KeyBundleDirectory,
  ) {}

  /** The identity key of the session with `peer` (after a message was encrypted or opened). */
  async peerIdentityKey(peer: string): Promise<Uint8Array> {
    const session = await this.records.load<SessionRecord>(sessionKey(peer));
    if (!session) throw new E2eeError('NO_SESSION', `no session with ${peer}`);
    return session.peerIdentityKey;
  }

  async encrypt(peer: string, plaintext: Uint8Array): Promise<Uint8Array> {
    const session =
      (await this.records.load<SessionRecord>(sessionKey(peer))) ?? (await this.start(peer));
    const { state, message } = ratchetEncrypt(session.ratchet, plaintext);
    await this.records.save(sessionKey(peer), { ...session, ratchet: state });
    const pending = session.pendingPreKey;
    if (!pending) return envelope(MessageType.Ratchet).fixed(message).bytes();
    return envelope(MessageType.PreKey)
      .fixed(pending.identityKey)
      .fixed(pending.ephemeralKey)
      .u32(pending.signedPreKeyId)
      .u32(pending.oneTimePreKeyId)
      .fixed(message)
      .bytes();
  }

  async decrypt(peer: string, ciphertext: Uint8Array): Promise<Uint8Array> {
    const { type, reader } = openEnvelope(ciphertext, MessageType.PreKey, MessageType.Ratchet);
    const stored = await this.records.load<SessionRecord>(sessionKey(peer));
    if (type === MessageType.PreKey) return this.decryptPreKey(peer, reader, stored);
    if (!stored) throw new E2eeError('NO_SESSION', `no session with ${peer}`);
    const { state, plaintext } = ratchetDecrypt(stored.ratchet, reader.rest());
    // The peer's reply proves it made the session: stop sending the X3DH fields.
    await this.records.save(sessionKey(peer), {
      ...stored,
      ratchet: state,
      pendingPreKey: undefined,
    });
    return plaintext;
  }

  private async start(peer: string): Promise<SessionRecord> {
    const bundle = await this.directory.fetch(peer);
    await this.records.save(trustedKey(peer), bundle.identityKey);
    const agreed = x3dhInitiate(this.identity.identityKey, bundle);
    return {
      peerIdentityKey: bundle.identityKey,
      ratchet: initiatorState(
        agreed.sharedSecret,
        agreed.associatedData,
        bundle.signedPreKey.publicKey,
      ),
      pendingPreKey: {
        identityKey: this.identity.identityKey.publicKey,
        ephemeralKey: agreed.ephemeralKey,
        signedPreKeyId: bundle.signedPreKey.keyId,
        oneTimePreKeyId: bundle.oneTimePreKey?.keyId ?? 0,
      },
    };
  }

  private async decryptPreKey(
    peer: string,
    reader: ByteReader,
    stored: SessionRecord | undefined,
  ): Promise<Uint8Array> {
    const fields: PreKeyFields = {
      identityKey: reader.fixed(32),
      ephemeralKey: reader.fixed(32),
      signedPreKeyId: reader.u32(),
      oneTimePreKeyId: reader.u32(),
    };
    const message = reader.rest();
    // The initiator repeats the X3DH fields until we reply: same base key, same session.
    if (stored?.baseKey && equalBytes(stored.baseKey, fields.ephemeralKey)) {
      const { state, plaintext } = ratchetDecrypt(stored.ratchet, message);
      await this.records.save(sessionKey(peer), { ...stored, ratchet: state });
      return plaintext;
    }
    const signedPreKey = this.identity.signedPreKey(fields.signedPreKeyId);
    if (!signedPreKey) throw new E2eeError('NO_SESSION', 'unknown signed prekey');
    const oneTimeSecret = fields.oneTimePreKeyId
      ? await this.identity.oneTimePreKeySecret(fields.oneTimePreKeyId)
      : undefined;
    if (fields.oneTimePreKeyId && !oneTimeSecret)
      throw new E2eeError('DUPLICATE_MESSAGE', 'one-time prekey already used');
    const agreed = x3dhRespond(
      this.identity.identityKey,
      signedPreKey,
      oneTimeSecret,
      fields.identityKey,
      fields.ephemeralKey,
    );
    const { state, plaintext } = ratchetDecrypt(
      responderState(agreed.sharedSecret, agreed.associatedData, signedPreKey),
      message,
    );
    // Only a message that opened may cost a bundle fetch or consume the one-time prekey.
    await this.trustIdentity(peer, fields.identityKey);
    await this.records.save(sessionKey(peer), {
      peerIdentityKey: fields.identityKey,
      ratchet: state,
      baseKey: fields.ephemeralKey,
    } satisfies SessionRecord);
    if (fields.oneTimePreKeyId) await this.identity.consumeOneTimePreKey(fields.oneTimePreKeyId);
    return plaintext;
  }

  /** Accepts `identityKey` for `peer` if it is the one trusted, or the one their verified bundle shows. */
  private async trustIdentity(peer: string, identityKey: Uint8Array): Promise<void> {
    const trusted = await this.records.load<Uint8Array>(trustedKey(peer));
    if (trusted && equalBytes(trusted, identityKey)) return;
    const bundle = await this.directory.fetch(peer);
    if (!equalBytes(bundle.identityKey, identityKey))
      throw new E2eeError(
        'UNTRUSTED_IDENTITY',
        `the session's identity key is not the one ${peer} published`,
      );
    await this.records.save(trustedKey(peer), identityKey);
  }
}
