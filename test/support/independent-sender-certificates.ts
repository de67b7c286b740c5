/**
 * A recipient's side of sealed sender, independent of the service's code: the certificate's
 * protobuf decoded with protobufjs from relay.proto, its signature checked with @noble/curves'
 * Ed25519 against the pinned trust-root key of its key id, and its validity window checked at a
 * given time.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import protobuf from 'protobufjs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

function loadCertificateType(): protobuf.Type {
  const protos = new protobuf.Root();
  // relay.proto imports the service options, google/api annotations (vendored) and, through them, google/protobuf.
  const folders: [string, string][] = [
    ['service/', 'proto/'],
    ['google/api/', 'third_party/'],
    ['google/protobuf/', 'node_modules/google-proto-files/'],
  ];
  protos.resolvePath = (_origin, target) => {
    const folder = folders.find(([prefix]) => target.startsWith(prefix));
    return folder ? `${root}${folder[1]}${target}` : target;
  };
  protos.loadSync('service/v1/relay.proto', { keepCase: true });
  return protos.lookupType('service.v1.SenderCertificateData');
}
const certificateType = loadCertificateType();

export interface TrustRootKey {
  key_id: string;
  algorithm: string;
  public_key: string;
}

export interface DecodedCertificate {
  sender_address: string;
  identity_key: string;
  ed25519_public_key: string;
  key_id: string;
  issued_at: string;
  expires_at: string;
}

export function decodeCertificate(certificateBase64: string): DecodedCertificate {
  return certificateType.toObject(
    certificateType.decode(Buffer.from(certificateBase64, 'base64')),
    { defaults: true },
  ) as DecodedCertificate;
}

/** What a recipient accepts at `now`: signed by the pinned key its `key_id` names, and not expired. */
export function recipientAccepts(
  certificate: { certificate: string; signature: string; key_id: string },
  pinned: readonly TrustRootKey[],
  now: Date,
): boolean {
  const key = pinned.find((candidate) => candidate.key_id === certificate.key_id);
  if (!key) return false;
  const bytes = Buffer.from(certificate.certificate, 'base64');
  if (
    !ed25519.verify(
      Buffer.from(certificate.signature, 'base64'),
      bytes,
      Buffer.from(key.public_key, 'base64'),
    )
  )
    return false;
  const data = decodeCertificate(certificate.certificate);
  return (
    data.key_id === certificate.key_id &&
    new Date(data.issued_at) <= now &&
    now < new Date(data.expires_at)
  );
}
