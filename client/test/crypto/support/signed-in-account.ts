/**
 * An account of the running service with a real wallet (viem, independent of the SDK's code):
 * registers over REST with the spec's registration template and EIP-191 signature, and gives the
 * SDK what it needs — an ApiCaller with the account's token and a wallet signer.
 */
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { WalletSigner } from '../../../src/crypto/index.js';
import { FetchApiCaller } from './fetch-api-caller.js';

export const SERVICE_NAME = 'Service';

export interface SignedInAccount {
  readonly address: string;
  readonly accessToken: string;
  readonly api: FetchApiCaller;
  readonly signer: WalletSigner;
}

let counter = 0;

export async function signedInAccount(baseUrl: string): Promise<SignedInAccount> {
  const wallet = privateKeyToAccount(generatePrivateKey());
  const username = `e2ee_${process.pid}_${++counter}`;
  const message = [
    `${SERVICE_NAME} Registration`,
    `I confirm that I own this wallet and want to register with ${SERVICE_NAME}.`,
    `Wallet: ${wallet.address}`,
    `Username: ${username}`,
    `Name: ${username}`,
    `Timestamp: ${Date.now()}`,
  ].join('\n');
  const response = await fetch(`${baseUrl}/api/v1/initialize`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      wallet_address: wallet.address,
      message,
      signature: await wallet.signMessage({ message }),
    }),
  });
  const body = (await response.json()) as { access_token?: string };
  if (response.status !== 200 || !body.access_token)
    throw new Error(`registration failed: ${response.status} ${JSON.stringify(body)}`);
  return {
    address: wallet.address.toLowerCase(),
    accessToken: body.access_token,
    api: new FetchApiCaller(baseUrl, body.access_token),
    signer: {
      address: wallet.address,
      signMessage: (text) => wallet.signMessage({ message: text }),
    },
  };
}
