/**
 * Wallet sign-in over real HTTP for the e2e tests in test/identity/signin/: builds fresh
 * template messages (the hand-written templates of test/identity/wallet/sign-in-fixtures.ts,
 * stamped with the current time), signs them with the TestUser's ethers wallet, posts them, and
 * returns what came back (status, JSON body, Set-Cookie lines) without judging it.
 */
import { message as templateMessage } from '../identity/wallet/sign-in-fixtures.js';
import type { TemplateFields, VariantName } from '../identity/wallet/sign-in-fixtures.js';
import type { TestUser } from './wallet.js';
import type { Json } from './json.js';
import { requestDeadline } from './request-timeout.js';

export type { VariantName } from '../identity/wallet/sign-in-fixtures.js';

export interface HttpAnswer {
  status: number;
  // The JSON body as the test reads it; each test asserts the members it relies on.
  body: Json;
  /** The Set-Cookie header lines, one per cookie. */
  setCookies: string[];
}

export async function postJson(
  baseUrl: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<HttpAnswer> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: requestDeadline(),
  });
  return {
    status: response.status,
    body: await response.json(),
    setCookies: response.headers.getSetCookie(),
  };
}

export const postInitialize = (
  baseUrl: string,
  body: unknown,
  headers: Record<string, string> = {},
) => postJson(baseUrl, '/api/v1/initialize', body, headers);

let lastStamp = 0;
/**
 * The current time in ms, but never the same value twice in this process: two messages built
 * within one millisecond would otherwise be equal, and so would their (deterministic) signatures,
 * turning the second into a replay.
 */
export function uniqueNow(): number {
  lastStamp = Math.max(Date.now(), lastStamp + 1);
  return lastStamp;
}

/**
 * A template message for `user`, stamped now (uniquely) unless `fields` says otherwise.
 * `wallet` defaults to the user's checksummed address and `username` to the user's own.
 */
export const freshMessage = (
  variant: VariantName,
  user: TestUser,
  fields: Partial<TemplateFields> = {},
): string =>
  templateMessage(variant, {
    wallet: user.address,
    username: user.username,
    timestamp: uniqueNow(),
    ...fields,
  });

/** An Initialize body: `message` signed by `signer` (default: the user), posted for `user`'s wallet. */
export async function signedBody(
  user: TestUser,
  message: string,
  extra: Record<string, unknown> = {},
  signer: TestUser = user,
) {
  return { wallet_address: user.address, message, signature: await signer.sign(message), ...extra };
}

/** Signs `message` as `user` and posts it to /api/v1/initialize. */
export async function signAndPost(
  baseUrl: string,
  user: TestUser,
  message: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) {
  return postInitialize(baseUrl, await signedBody(user, message, extra), headers);
}

/** Asserts the failure envelope `{success: false, error, code}` and the exact status. */
export function expectFailure(answer: HttpAnswer, status: number, code: string): void {
  expect({ status: answer.status, body: answer.body }).toEqual({
    status,
    body: { success: false, error: expect.any(String), code },
  });
}

/** Asserts, with the status probe, that `user`'s wallet has no account (400 INVALID_ARGUMENT). */
export async function expectNoAccount(baseUrl: string, user: TestUser): Promise<void> {
  expectFailure(
    await postInitialize(baseUrl, { wallet_address: user.address }),
    400,
    'INVALID_ARGUMENT',
  );
}

/** Asserts a 200 sign-in (not a registration) of `user`. */
export function expectSignedIn(answer: HttpAnswer, user: TestUser, isNewUser: boolean): void {
  expect({
    status: answer.status,
    success: answer.body.success,
    is_new_user: answer.body.is_new_user,
    address: answer.body.user?.address,
  }).toEqual({
    status: 200,
    success: true,
    is_new_user: isNewUser,
    address: user.address.toLowerCase(),
  });
}
