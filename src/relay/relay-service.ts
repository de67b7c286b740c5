/**
 * RelayService (relay.proto): sender certificates, the sealed-sender relay and its trust root.
 * SendSealedMessage authenticates its caller (the pipeline does, for abuse control) and then
 * never uses who it is: nothing it stores, logs or delivers names the caller.
 */
import type { HandlerContext } from '@connectrpc/connect';
import type { SendSealedMessageRequest } from '../gen/service/v1/relay_pb.js';
import type { AccountRepository } from '../accounts/account-repository.js';
import { requireExistingUser } from '../accounts/existing-user.js';
import { requireCaller } from '../identity/auth/caller.js';
import type { KeyBundleRepository } from '../keys/store/key-bundle-repository.js';
import { conflict, invalidArgument } from '../platform/errors/api-error.js';
import type { SenderCertificates } from './certificates/sender-certificates.js';
import type { SealedDelivery } from './sealed/sealed-delivery.js';
import type { SealedMailbox } from './sealed/sealed-mailbox.js';

export const MAX_SEALED_PAYLOAD_BYTES = 256 * 1024;
const CLIENT_MESSAGE_ID = /^.{1,64}$/su;

export interface RelayServiceDependencies {
  readonly certificates: SenderCertificates;
  readonly bundles: KeyBundleRepository;
  readonly accounts: AccountRepository;
  readonly mailbox: SealedMailbox;
  readonly delivery: SealedDelivery;
}

export function createRelayService({
  certificates,
  bundles,
  accounts,
  mailbox,
  delivery,
}: RelayServiceDependencies) {
  return {
    async issueSenderCertificate(_request: unknown, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const bundle = await bundles.find(caller);
      if (!bundle)
        throw conflict(
          'Publish a key bundle (POST /api/v1/keys) before requesting a sender certificate',
        );
      const issued = certificates.issue(bundle);
      return {
        success: true,
        message: 'Sender certificate issued',
        certificate: issued.certificate,
        signature: issued.signature,
        keyId: issued.data.keyId,
        expiresAt: issued.data.expiresAt,
        data: issued.data,
      };
    },

    async sendSealedMessage(request: SendSealedMessageRequest) {
      const payloadSize = request.sealedPayload.byteLength;
      if (payloadSize < 1 || payloadSize > MAX_SEALED_PAYLOAD_BYTES)
        throw invalidArgument(`sealed_payload must have 1 to ${MAX_SEALED_PAYLOAD_BYTES} bytes`);
      if (!CLIENT_MESSAGE_ID.test(request.clientMessageId))
        throw invalidArgument('client_message_id must have 1 to 64 characters');
      const recipient = await requireExistingUser(
        accounts,
        request.recipientAddress,
        'recipient_address',
      );
      const accepted = await mailbox.accept(
        recipient,
        request.clientMessageId,
        request.sealedPayload,
      );
      const { envelope } = accepted;
      const delivered = accepted.duplicate
        ? await mailbox.isDelivered(envelope._id)
        : await delivery.deliver(envelope);
      return {
        success: true,
        message: accepted.duplicate
          ? 'Already relayed'
          : delivered
            ? 'Delivered'
            : 'Queued for the recipient',
        messageId: envelope._id,
        receivedAt: envelope.receivedAt.toISOString(),
        delivered,
        duplicate: accepted.duplicate,
      };
    },

    async getTrustRoot() {
      return {
        success: true,
        message: 'Sender certificate trust root',
        keys: certificates.trustRoot(),
      };
    },
  };
}
