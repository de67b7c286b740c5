/**
 * PhoneAuthService.RegisterPhone: an account bound to a verified number. The wallet is proven
 * exactly as in a wallet registration (WalletProof, registration templates only); the identity
 * key becomes the key that phone logins are verified against; `phone_hash_signature` binds the
 * number to that key (missing: accepted with a warning, during the spec's transition period).
 */
import type { HandlerContext } from '@connectrpc/connect';
import type { RegisterPhoneRequest } from '../gen/service/v1/phone_pb.js';
import { conflict, invalidArgument, unauthenticated } from '../platform/errors/api-error.js';
import { callInfoOf } from '../platform/rpc/call-context.js';
import type { Account } from '../accounts/account.js';
import type { AccountRepository } from '../accounts/account-repository.js';
import type { AuditLog } from '../identity/audit/audit-log.js';
import { authUserOf } from '../identity/signin/auth-user.js';
import { dpopKeyOf } from '../identity/signin/dpop-binding.js';
import type { Registration } from '../identity/signin/registration.js';
import type { SessionStarter } from '../identity/signin/session-starter.js';
import { SIGN_IN_LIMITS as LIMITS } from '../identity/signin/sign-in-limits.js';
import type { WalletProof } from '../identity/signin/wallet-proof.js';
import type { DpopValidator } from '../identity/tokens/dpop.js';
import { isWalletAddress } from '../accounts/wallet-address.js';
import { requireBase64, verifiesWithIdentityKey } from './identity-key.js';
import type { PhoneAccounts } from './phone-accounts.js';
import type { VerificationTokens } from './verification-tokens.js';

export interface RegisterPhoneDependencies {
  readonly verifications: VerificationTokens;
  readonly phoneAccounts: PhoneAccounts;
  readonly accounts: AccountRepository;
  readonly walletProof: WalletProof;
  readonly registration: Registration;
  readonly dpop: DpopValidator;
  readonly sessionStarter: SessionStarter;
  readonly audit: AuditLog;
}

function checkRequest(request: RegisterPhoneRequest): void {
  if (!isWalletAddress(request.walletAddress))
    throw invalidArgument('wallet_address must be 0x followed by 40 hex characters');
  if (request.message === '' || request.signature === '')
    throw invalidArgument('message and signature are required');
  if (request.message.length > LIMITS.message)
    throw invalidArgument(`message has at most ${LIMITS.message} characters`);
  if (request.signature.length > LIMITS.signature) throw invalidArgument('signature is malformed');
  if (request.username.length > LIMITS.username)
    throw invalidArgument(`username has at most ${LIMITS.username} characters`);
  if (request.deviceName.length > LIMITS.deviceName)
    throw invalidArgument(`device_name has at most ${LIMITS.deviceName} characters`);
  if (request.identityPublicKey === '') throw invalidArgument('identity_public_key is required');
}

export function registerPhone(deps: RegisterPhoneDependencies) {
  const { verifications, phoneAccounts, walletProof } = deps;
  return async (request: RegisterPhoneRequest, context: HandlerContext) => {
    const call = callInfoOf(context);
    checkRequest(request);
    const identityKey = requireBase64(request.identityPublicKey, 32, 'identity_public_key');
    const hashSignature =
      request.phoneHashSignature === ''
        ? undefined
        : requireBase64(request.phoneHashSignature, 64, 'phone_hash_signature');
    const verification = await verifications.check(request.verificationToken);
    const { phoneHash } = verification.payload;
    if (await phoneAccounts.findByHash(phoneHash))
      throw conflict('This phone number is already registered');
    if (hashSignature === undefined) {
      call.logger.warn(
        { wallet: request.walletAddress.toLowerCase() },
        'phone registration without phone_hash_signature accepted (transition period)',
      );
    } else if (!verifiesWithIdentityKey(identityKey, phoneHash, hashSignature)) {
      throw unauthenticated('phone_hash_signature does not verify with identity_public_key');
    }

    const dpopJkt = await dpopKeyOf(deps.dpop, context);
    const proof = await walletProof.prove(call, request);
    const { verified } = proof;
    let account: Account;
    try {
      if (verified.parsed.kind === 'sign-in')
        throw unauthenticated('message must be a registration template');
      if (await deps.accounts.find(verified.address))
        throw conflict('This wallet already has an account');
      await verifications.consume(verification);
      // The binding first: its unique hash settles a race between two registrations of one number.
      await phoneAccounts.bind({
        _id: verified.address,
        phoneHash,
        hashVersion: 2,
        identityPublicKey: request.identityPublicKey,
        createdAt: new Date(),
        completedAt: null,
      });
      try {
        account = await deps.registration.register(
          request,
          verified.parsed,
          verified.address,
          'phone',
        );
      } catch (error) {
        await phoneAccounts.remove(verified.address);
        throw error;
      }
    } catch (error) {
      await walletProof.release(proof);
      throw error;
    }
    const started = await deps.sessionStarter.start(context, {
      address: account._id,
      authMethod: 'phone',
      deviceName: request.deviceName,
      dpopJkt,
    });
    await deps.audit.record(call, 'registration', {
      address: account._id,
      sessionId: started.sessionId,
      detail: 'phone',
    });
    return { success: true, message: 'Account created', ...started, user: authUserOf(account) };
  };
}
