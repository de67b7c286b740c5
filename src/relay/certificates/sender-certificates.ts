/**
 * Sender certificates for sealed sender: the service vouches, for 24 hours, that a wallet
 * address owns the keys of its published bundle. The certificate is the protobuf encoding of
 * SenderCertificateData, signed as bytes with the service's Ed25519 key; recipients verify it
 * with the key they pin (the trust root), so they trust the sender without the relay ever
 * storing who sent what.
 */
import { create, toBinary } from '@bufbuild/protobuf';
import { sign } from 'node:crypto';
import { SenderCertificateDataSchema } from '../../gen/service/v1/relay_pb.js';
import type { SenderCertificateData } from '../../gen/service/v1/relay_pb.js';
import type { SignedBundle } from '../../keys/bundle/signed-bundle.js';
import type { CertificateSigningKey } from './certificate-signing-key.js';

export const CERTIFICATE_VALIDITY_MS = 24 * 60 * 60 * 1000;

export interface SenderCertificate {
  readonly certificate: Uint8Array;
  readonly signature: Uint8Array;
  readonly data: SenderCertificateData;
}

export class SenderCertificates {
  constructor(
    private readonly key: CertificateSigningKey,
    private readonly now: () => Date = () => new Date(),
  ) {}

  issue(
    sender: Pick<SignedBundle, 'address' | 'identityKey' | 'ed25519PublicKey'>,
  ): SenderCertificate {
    const issuedAt = this.now();
    const data = create(SenderCertificateDataSchema, {
      senderAddress: sender.address,
      identityKey: sender.identityKey,
      ed25519PublicKey: sender.ed25519PublicKey,
      keyId: this.key.keyId,
      issuedAt: issuedAt.toISOString(),
      expiresAt: new Date(issuedAt.getTime() + CERTIFICATE_VALIDITY_MS).toISOString(),
    });
    const certificate = toBinary(SenderCertificateDataSchema, data);
    return { certificate, signature: sign(null, certificate, this.key.privateKey), data };
  }

  trustRoot() {
    return [{ keyId: this.key.keyId, algorithm: 'Ed25519', publicKey: this.key.publicKey }];
  }
}
