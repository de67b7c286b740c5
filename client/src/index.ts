/** The SDK's public surface: everything a client application imports comes from here. */
export const SDK_VERSION = '0.1.0';

export type { ApiCaller, HttpMethod } from './api-caller.js';
export { ApiError, SessionEndedError } from './api-error.js';
export type { MessageCipher } from './message-cipher.js';

export { createMessageCipher, E2eeError, MemoryKeyStore } from './crypto/index.js';
export type {
  E2eeClient,
  E2eeErrorCode,
  E2eeOptions,
  KeyStore,
  TrustRootKey,
} from './crypto/index.js';
export type { WalletSigner as E2eeWalletSigner } from './crypto/index.js';
export { LocalStorageKeyStore } from './storage/local-storage-key-store.js';

export type { WalletSigner } from './signer/wallet-signer.js';
export { privateKeySigner, newPrivateKey } from './signer/private-key-signer.js';
export { eip1193Signer } from './signer/eip1193-signer.js';
export type { Eip1193Provider } from './signer/eip1193-signer.js';

export { signIn } from './sign-in/sign-in.js';
export type { SignInOptions, SignedIn } from './sign-in/sign-in.js';
export { signInTemplate, registrationTemplate, siweMessage } from './sign-in/sign-in-messages.js';
export type { SiweOptions } from './sign-in/sign-in-messages.js';
export { solveProofOfWork } from './sign-in/proof-of-work.js';

export { AuthorizedSession } from './session/authorized-session.js';
export { TokenSession } from './session/token-session.js';
export type { SessionTokens } from './session/token-session.js';
export { CookieSession, csrfCookie } from './session/cookie-session.js';
export { createDpopKey, dpopProof } from './session/dpop-key.js';

export { RealtimeConnection } from './realtime/realtime-connection.js';
export type {
  ConnectionState,
  RealtimeOptions,
  ResyncRequired,
} from './realtime/realtime-connection.js';
export type { EventDataMap, EventEnvelope, StreamPosition } from './realtime/realtime-events.js';
export { parseMessage } from './realtime/realtime-events.js';
export { backoffDelay } from './realtime/backoff.js';
export type { BackoffPolicy } from './realtime/backoff.js';

export { Messenger } from './messaging/messenger.js';
export type { OpenedMessage, HistoryPage } from './messaging/messenger.js';
export type { Conversation } from './messaging/conversation.js';
export { conversationKey } from './messaging/conversation.js';
export type { MessageContent } from './messaging/message-content.js';
export { memoryPlaintextStore } from './messaging/plaintext-store.js';
export type { PlaintextStore } from './messaging/plaintext-store.js';

export { uploadMedia, downloadMedia } from './media/uploads.js';
export type { MediaKind } from './media/uploads.js';
export { encryptAttachment, decryptAttachment } from './media/attachment-encryption.js';
export type { AttachmentKey } from './media/attachment-encryption.js';

export type { Message, Chat } from './gen/service/v1/messages_pb.js';
export type { AuthUser } from './gen/service/v1/auth_pb.js';
export { listChats, createGroup } from './messaging/chats.js';
