/**
 * The service's key directory as this device uses it (`/keys` routes of keys.proto): publishes
 * this device's bundle with its wallet binding and signatures, tops up one-time prekeys, and
 * fetches a peer's bundle, accepted only once its chain of trust verifies.
 */
import type { ApiCaller } from '../api-caller.js';
import { toBase64, utf8ToBytes } from './bytes.js';
import { bundleStatement, keyBindingMessage, verifyKeyBundle } from './key-bundle.js';
import type { KeyBundleJson, PublishBundleJson, VerifiedBundle } from './key-bundle.js';
import type { LocalIdentity } from './local-identity.js';
import type { WalletSigner } from './wallet-signer.js';

/** keys.proto: at most 100 prekeys per call, 200 stored; top up below 20. */
const PREKEYS_PER_CALL = 100;
const PREKEYS_STORED_MAX = 200;
const PREKEY_TOP_UP_BELOW = 20;

export class KeyBundleDirectory {
  constructor(
    private readonly api: ApiCaller,
    private readonly signer: WalletSigner,
    private readonly identity: LocalIdentity,
    private readonly serviceName: string,
  ) {}

  private get address(): string {
    return this.signer.address.toLowerCase();
  }

  /**
   * Publishes (or replaces) this device's bundle with a new signed prekey and `oneTimePreKeys`
   * fresh one-time prekeys, and resolves with that count. The wallet is asked to sign only the
   * first time (per Ed25519 key).
   */
  async publish(oneTimePreKeys = PREKEYS_PER_CALL): Promise<number> {
    const signedPreKey = await this.identity.rotateSignedPreKey();
    const unsigned = {
      ed25519PublicKey: toBase64(this.identity.ed25519PublicKey),
      identityKey: toBase64(this.identity.identityKey.publicKey),
      registrationId: this.identity.registrationId,
      signedPreKey: {
        keyId: signedPreKey.keyId,
        publicKey: toBase64(signedPreKey.publicKey),
        signature: toBase64(signedPreKey.signature),
        timestamp: signedPreKey.timestamp,
      },
      walletBinding: await this.walletBinding(),
    };
    const body: PublishBundleJson = {
      ...unsigned,
      oneTimePreKeys: await this.newPreKeys(oneTimePreKeys),
      bundleSignature: toBase64(
        this.identity.signEd25519(
          utf8ToBytes(bundleStatement(this.serviceName, this.address, unsigned)),
        ),
      ),
    };
    await this.api.call('POST', '/keys', body);
    return oneTimePreKeys;
  }

  /**
   * Uploads one-time prekeys when fewer than PREKEY_TOP_UP_BELOW are left (`left`, when the caller
   * has just read the bundle, else asked for); resolves with how many are available afterwards.
   */
  async topUp(known?: number): Promise<number> {
    const left =
      known ??
      (await this.api.call<{ one_time_pre_key_count: number }>('GET', '/keys'))
        .one_time_pre_key_count;
    if (left >= PREKEY_TOP_UP_BELOW) return left;
    const count = Math.min(PREKEYS_PER_CALL, PREKEYS_STORED_MAX - left);
    const added = await this.api.call<{ one_time_pre_key_count: number }>(
      'POST',
      '/keys/one-time-prekeys',
      { oneTimePreKeys: await this.newPreKeys(count) },
    );
    return added.one_time_pre_key_count;
  }

  /** A peer's bundle (taking one of their one-time prekeys), verified; throws if it does not verify. */
  async fetch(address: string): Promise<VerifiedBundle> {
    const response = await this.api.call<{ keyBundle: KeyBundleJson }>(
      'GET',
      `/keys/${encodeURIComponent(address.toLowerCase())}`,
    );
    return verifyKeyBundle(response.keyBundle, address, this.serviceName);
  }

  private async walletBinding(): Promise<{ signature: string; timestamp: number }> {
    const existing = this.identity.walletBinding;
    if (existing) return existing;
    const timestamp = Date.now();
    const message = keyBindingMessage(
      this.serviceName,
      this.address,
      toBase64(this.identity.ed25519PublicKey),
      timestamp,
    );
    const binding = { signature: await this.signer.signMessage(message), timestamp };
    await this.identity.setWalletBinding(binding);
    return binding;
  }

  private async newPreKeys(count: number) {
    const keys = await this.identity.newOneTimePreKeys(count);
    return keys.map(({ keyId, publicKey }) => ({ keyId, publicKey: toBase64(publicKey) }));
  }
}
