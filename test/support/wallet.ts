/**
 * A test user with a real Ethereum wallet (ethers, independent of the service's code): builds
 * the spec's sign-in templates, signs them with EIP-191 personal_sign, and signs in over REST.
 */
import { Wallet } from 'ethers';
import { requestDeadline } from './request-timeout.js';

export const SERVICE_NAME = 'Service';

export interface TemplateFields {
  address: string;
  username?: string;
  displayName?: string;
  timestampMs?: number;
  serviceName?: string;
}

export const signInMessage = ({
  address,
  timestampMs = Date.now(),
  serviceName = SERVICE_NAME,
}: TemplateFields) =>
  [
    `${serviceName} Sign In`,
    '',
    `I confirm that I own this wallet and want to sign in to ${serviceName}.`,
    '',
    `Wallet: ${address}`,
    `Timestamp: ${timestampMs}`,
  ].join('\n');

export const registrationMessage = ({
  address,
  username = 'alice',
  displayName = 'Alice',
  timestampMs = Date.now(),
  serviceName = SERVICE_NAME,
}: TemplateFields) =>
  [
    `${serviceName} Registration`,
    `I confirm that I own this wallet and want to register with ${serviceName}.`,
    `Wallet: ${address}`,
    `Username: ${username}`,
    `Name: ${displayName}`,
    `Timestamp: ${timestampMs}`,
  ].join('\n');

export const shortRegistrationMessage = ({
  address,
  username = 'alice',
  timestampMs = Date.now(),
  serviceName = SERVICE_NAME,
}: TemplateFields) =>
  [
    `${serviceName} Registration`,
    `Wallet: ${address}`,
    `Username: ${username}`,
    `Timestamp: ${timestampMs}`,
  ].join('\n');

let counter = 0;

export class TestUser {
  readonly wallet = Wallet.createRandom();
  readonly username = `user_${process.pid}_${++counter}_${Math.floor(Math.random() * 1e6)}`.slice(
    0,
    32,
  );

  get address(): string {
    return this.wallet.address;
  }

  sign(message: string): Promise<string> {
    return this.wallet.signMessage(message);
  }

  /** The body of a registration (first sign-in) or, once registered, of a sign-in. */
  initializeBody(kind: 'register' | 'sign-in', extra: Record<string, unknown> = {}) {
    return templateInitializeBody(this, kind, extra);
  }
}

/** A wallet that signs sign-in templates: an EOA (TestUser) or a contract wallet's owner. */
export interface TemplateSigner {
  readonly address: string;
  readonly username: string;
  sign(message: string): Promise<string>;
}

/** The Initialize body of a template registration (first sign-in) or, once registered, sign-in. */
export async function templateInitializeBody(
  signer: TemplateSigner,
  kind: 'register' | 'sign-in',
  extra: Record<string, unknown> = {},
) {
  const { address, username } = signer;
  const message =
    kind === 'register' ? registrationMessage({ address, username }) : signInMessage({ address });
  return { wallet_address: address, message, signature: await signer.sign(message), ...extra };
}

export interface SignedIn {
  user: TestUser;
  accessToken: string;
  refreshToken: string;
  sessionId: string;
  /** `name=value` pairs of the cookies the sign-in set. */
  cookies: Record<string, string>;
  csrfToken: string;
}

/** Registers (first call) or signs in a user over real HTTP and returns its tokens and cookies. */
export async function signIn(
  baseUrl: string,
  user = new TestUser(),
  kind: 'register' | 'sign-in' = 'register',
  headers: Record<string, string> = {},
): Promise<SignedIn> {
  const response = await fetch(`${baseUrl}/api/v1/initialize`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(await user.initializeBody(kind)),
    signal: requestDeadline(),
  });
  const body = (await response.json()) as Record<string, string>;
  if (response.status !== 200)
    throw new Error(`sign-in failed: ${response.status} ${JSON.stringify(body)}`);
  const cookies = Object.fromEntries(
    response.headers
      .getSetCookie()
      .map((line) => line.split(';')[0]!.split('=') as [string, string]),
  );
  return {
    user,
    accessToken: body.access_token!,
    refreshToken: body.refresh_token!,
    sessionId: body.session_id!,
    cookies,
    csrfToken: body.csrf_token!,
  };
}

export const bearer = (session: SignedIn) => ({ authorization: `Bearer ${session.accessToken}` });
