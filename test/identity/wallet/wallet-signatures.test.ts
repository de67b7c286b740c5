/**
 * The one wallet check (wallet-signatures.ts) takes the EOA path first, without the network:
 * with a chain endpoint configured that cannot even be reached, an EOA's own signature is
 * accepted (the chain is never asked), while anything else goes to the chain and meets the
 * outage as DependencyUnavailableError (a 503), never as "invalid". Without an endpoint the
 * answers are today's. Signatures by ethers, independent of the service's code.
 */
import { Wallet } from 'ethers';
import { ContractWallets } from '../../../src/identity/wallet/contract-wallets.js';
import { recoverPersonalSignAddress } from '../../../src/identity/wallet/eip191.js';
import { WalletSignatures } from '../../../src/identity/wallet/wallet-signatures.js';
import { DependencyUnavailableError } from '../../../src/platform/errors/dependency-unavailable.js';
import { freePort } from '../../support/ports.js';

const message = 'Service Sign In\n\nI confirm.\n\nWallet: 0x\nTimestamp: 1';

async function unreachableChain(): Promise<ContractWallets> {
  // A port that was free a moment ago: nothing listens, connections are refused.
  const url = `http://127.0.0.1:${await freePort()}`;
  return new ContractWallets({
    rpcUrls: new Map([[1, url]]),
    defaultChainId: 1,
    rpcTimeoutMs: 500,
  });
}

it("accepts an EOA's signature without asking the chain, and keys it by the canonical signature", async () => {
  const wallet = Wallet.createRandom();
  const signature = await wallet.signMessage(message);
  const checker = new WalletSignatures(recoverPersonalSignAddress, await unreachableChain());
  const verified = await checker.verify(message, signature, wallet.address.toLowerCase());
  expect(verified).toEqual({
    ok: true,
    kind: 'eoa',
    replayKey: signature.slice(2, 130) + '0' + (Number.parseInt(signature.slice(130), 16) - 27),
  });
});

it('asks the chain for any other signer, and an unreachable chain is an outage, not a refusal', async () => {
  const [wallet, other] = [Wallet.createRandom(), Wallet.createRandom()];
  const checker = new WalletSignatures(recoverPersonalSignAddress, await unreachableChain());
  const address = wallet.address.toLowerCase();
  const byOther = await other.signMessage(message);
  await expect(checker.verify(message, byOther, address)).rejects.toThrow(
    DependencyUnavailableError,
  );
  const erc6492 = `0x${'00'.repeat(96)}${'6492'.repeat(16)}`;
  await expect(checker.verify(message, erc6492, address)).rejects.toThrow(
    DependencyUnavailableError,
  );
  // Not hex at all: refused as malformed before any network.
  expect(await checker.verify(message, 'not hex', address)).toMatchObject({
    ok: false,
    code: 'MALFORMED_SIGNATURE',
  });
});

it('without a chain, answers exactly what the EOA recovery answers', async () => {
  const [wallet, other] = [Wallet.createRandom(), Wallet.createRandom()];
  const checker = new WalletSignatures(recoverPersonalSignAddress, undefined);
  const address = wallet.address.toLowerCase();
  expect(await checker.verify(message, await other.signMessage(message), address)).toMatchObject({
    ok: false,
    code: 'NOT_SIGNER',
  });
  expect(await checker.verify(message, `0x${'ab'.repeat(200)}`, address)).toMatchObject({
    ok: false,
    code: 'MALFORMED_SIGNATURE',
  });
  expect(checker.contractWalletsOn()).toBe(false);
});
