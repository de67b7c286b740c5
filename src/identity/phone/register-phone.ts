/**
 * PhoneAuthService.RegisterPhone: an account bound to a verified number. The wallet is proven
 * exactly as in a wallet registration (proveWallet, registration templates only); the identity
 * key becomes the key that phone logins are verified against; `phone_hash_signature` binds the
 * number to that key (missing: accepted with a warning, during the spec's transition period).
 */
import type { HandlerContext } from '@connectrpc/connect';
import type { RegisterPhoneRequest } from '../../gen/service/v1/phone_pb.js';
import { conflict, invalidArgument, unauthenticated } from '../../platform/errors/api-error.js';
import { callInfoOf } from '../../platform/rpc/call-context.js';
import type { Account } from '../accounts/account.js';
import { authUserOf } from '../signin/mfa-gate.js';
import { dpopKeyOf } from '../signin/dpop-binding.js';
import { SIGN_IN_LIMITS, proveWallet, register } from '../signin/initialize.js';
import { startSession } from '../signin/session-starter.js';
import { isWalletAddress } from '../wallet/wallet-address.js';
import { requireBase64, verifiesWithIdentityKey } from './identity-key.js';
import type { PhoneAuth } from './phone-auth.js';

const LIMITS = SIGN_IN_LIMITS;

function checkRequest(request: RegisterPhoneRequest): void {
  if (!isWalletAddress(request.walletAddress)) throw invalidArgument('wallet_address must be 0x followed by 40 hex characters');
  if (request.message === '' || request.signature === '') throw invalidArgument('message and signature are required');
  if (request.message.length > LIMITS.message) throw invalidArgument(`message has at most ${LIMITS.message} characters`);
  if (request.signature.length > LIMITS.signature) throw invalidArgument('signature is malformed');
  if (request.username.length > LIMITS.username) throw invalidArgument(`username has at most ${LIMITS.username} characters`);
  if (request.deviceName.length > LIMITS.deviceName) throw invalidArgument(`device_name has at most ${LIMITS.deviceName} characters`);
  if (request.identityPublicKey === '') throw invalidArgument('identity_public_key is required');
}

export function registerPhone(phone: PhoneAuth) {
  const { identity } = phone;
  return async (request: RegisterPhoneRequest, context: HandlerContext) => {
    const call = callInfoOf(context);
    checkRequest(request);
    const identityKey = requireBase64(request.identityPublicKey, 32, 'identity_public_key');
    const hashSignature = request.phoneHashSignature === '' ? undefined : requireBase64(request.phoneHashSignature, 64, 'phone_hash_signature');
    const verification = await phone.verifications.check(request.verificationToken);
    const { phoneHash } = verification.payload;
    if (await phone.phoneAccounts.findByHash(phoneHash)) throw conflict('This phone number is already registered');
    if (hashSignature === undefined) {
      call.logger.warn({ wallet: request.walletAddress.toLowerCase() }, 'phone registration without phone_hash_signature accepted (transition period)');
    } else if (!verifiesWithIdentityKey(identityKey, phoneHash, hashSignature)) {
      throw unauthenticated('phone_hash_signature does not verify with identity_public_key');
    }

    const dpopJkt = await dpopKeyOf(identity.dpop, context);
    const { verified, replayKey } = await proveWallet(identity, call, request);
    let account: Account;
    try {
      if (verified.parsed.kind === 'sign-in') throw unauthenticated('message must be a registration template');
      if (await identity.accounts.find(verified.address)) throw conflict('This wallet already has an account');
      await phone.verifications.consume(verification);
      // The binding first: its unique hash settles a race between two registrations of one number.
      await phone.phoneAccounts.bind({
        _id: verified.address,
        phoneHash,
        hashVersion: 2,
        identityPublicKey: request.identityPublicKey,
        createdAt: new Date(),
        completedAt: null,
      });
      try {
        account = await register(identity, request, verified.parsed, verified.address, 'phone');
      } catch (error) {
        await phone.phoneAccounts.remove(verified.address);
        throw error;
      }
    } catch (error) {
      await identity.sharedState.delete(replayKey);
      throw error;
    }
    const started = await startSession(identity, context, { address: account._id, authMethod: 'phone', deviceName: request.deviceName, dpopJkt });
    await identity.audit.record(call, 'registration', { address: account._id, sessionId: started.sessionId, detail: 'phone' });
    return { success: true, message: 'Account created', ...started, user: authUserOf(account) };
  };
}
