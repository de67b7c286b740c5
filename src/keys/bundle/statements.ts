/**
 * The two texts an owner signs to vouch for their bundle, exactly as keys.proto documents them
 * for clients: the key binding message (signed by the wallet, EIP-191) and the bundle statement
 * (signed by the Ed25519 key). The service builds them from the record and checks the
 * signatures; it never accepts a text from the client.
 */
import type { SignedBundle } from './signed-bundle.js';

export function keyBindingMessage(
  serviceName: string,
  address: string,
  ed25519PublicKey: string,
  timestamp: number,
): string {
  return [
    `${serviceName} Key Binding`,
    '',
    'I confirm that this wallet owns the end-to-end encryption key below.',
    '',
    `Wallet: ${address}`,
    `Ed25519 Public Key: ${ed25519PublicKey}`,
    `Timestamp: ${timestamp}`,
  ].join('\n');
}

export function bundleStatement(
  serviceName: string,
  bundle: Omit<SignedBundle, 'bundleSignature' | 'ed25519PublicKey'>,
): string {
  const { signedPreKey: spk } = bundle;
  return [
    `${serviceName} Key Bundle`,
    `Wallet: ${bundle.address}`,
    `Identity Key: ${bundle.identityKey}`,
    `Registration Id: ${bundle.registrationId}`,
    `Signed PreKey Id: ${spk.keyId}`,
    `Signed PreKey: ${spk.publicKey}`,
    `Signed PreKey Timestamp: ${spk.timestamp}`,
    `Wallet Binding Timestamp: ${bundle.walletBinding.timestamp}`,
  ].join('\n');
}
