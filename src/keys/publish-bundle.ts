/**
 * PublishKeyBundle: the caller's bundle is checked exactly as fetching clients and DHT nodes
 * check it (the chain of trust of keys.proto), stored with its one-time prekeys (the durable
 * record), then written to the key directory. A directory that cannot be written leaves the
 * bundle stored, and the republisher writes it when the directory is back; the client is told
 * 503 so that it knows the bundle is not served yet and may retry (harmless: same bundle).
 */
import type { PublishKeyBundleRequest } from '../gen/service/v1/keys_pb.js';
import { DirectoryUnavailableError } from '../platform/dht/record-directory.js';
import type { RecordDirectory } from '../platform/dht/record-directory.js';
import { conflict, invalidArgument, unavailable } from '../platform/errors/api-error.js';
import { checkSignedBundle } from './bundle/bundle-verification.js';
import { encodeSignedBundle } from './bundle/signed-bundle.js';
import type { SignedBundle } from './bundle/signed-bundle.js';
import { checkedOneTimePreKeys } from './prekey-checks.js';
import type { KeyBundleRepository } from './store/key-bundle-repository.js';
import type { OneTimePreKeys } from './store/one-time-prekeys.js';

/** A wallet binding may be dated this far ahead of the server's clock (clock skew), no further. */
export const BINDING_CLOCK_SKEW_MS = 5 * 60 * 1000;

/** Identity's phone registrations, completed by the first published bundle. */
export interface RegistrationCompletion {
  markRegistrationComplete(address: string): Promise<void>;
}

export interface PublishBundleDependencies {
  readonly serviceName: string;
  readonly directory: RecordDirectory;
  readonly bundles: KeyBundleRepository;
  readonly prekeys: OneTimePreKeys;
  readonly registrations: RegistrationCompletion;
}

export async function publishKeyBundle(
  deps: PublishBundleDependencies,
  address: string,
  request: PublishKeyBundleRequest,
): Promise<{ oneTimePreKeyCount: number; updatedAt: Date }> {
  const bundle = signedBundleOf(address, request);
  const prekeys = checkedOneTimePreKeys(request.oneTimePreKeys, 0);
  const now = new Date();
  if (bundle.walletBinding.timestamp > now.getTime() + BINDING_CLOCK_SKEW_MS) {
    throw invalidArgument('walletBinding.timestamp is in the future', 'INVALID_WALLET_BINDING');
  }
  const check = checkSignedBundle(deps.serviceName, bundle);
  if (!check.ok) throw invalidArgument(check.detail, check.reason);

  if (!(await deps.bundles.save(bundle, now))) {
    throw conflict(
      'A newer key bundle is published (later walletBinding.timestamp or signedPreKey.timestamp)',
      'STALE_KEY_BUNDLE',
    );
  }
  await deps.prekeys.replace(address, prekeys);
  await deps.registrations.markRegistrationComplete(address);
  try {
    await deps.directory.put(address, encodeSignedBundle(bundle));
  } catch (error) {
    if (error instanceof DirectoryUnavailableError)
      throw unavailable(
        'The bundle is stored but the key directory could not be written yet; it is re-published automatically',
      );
    throw error;
  }
  return { oneTimePreKeyCount: prekeys.length, updatedAt: now };
}

function signedBundleOf(address: string, request: PublishKeyBundleRequest): SignedBundle {
  const { signedPreKey, walletBinding } = request;
  if (!signedPreKey) throw invalidArgument('signedPreKey is required');
  if (!walletBinding) throw invalidArgument('walletBinding is required', 'INVALID_WALLET_BINDING');
  return {
    address,
    ed25519PublicKey: request.ed25519PublicKey,
    identityKey: request.identityKey,
    registrationId: request.registrationId,
    signedPreKey: {
      keyId: signedPreKey.keyId,
      publicKey: signedPreKey.publicKey,
      signature: signedPreKey.signature,
      timestamp: signedPreKey.timestamp,
    },
    walletBinding: { signature: walletBinding.signature, timestamp: walletBinding.timestamp },
    bundleSignature: request.bundleSignature,
  };
}
