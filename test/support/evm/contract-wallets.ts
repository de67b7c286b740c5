/**
 * The test's contract wallets on the local chain: OwnedWallet (ERC-1271, owners added and
 * removed by an owner) and its CREATE2 WalletFactory, compiled by solc in the test process
 * (once per test file: the artifacts are kept in this module), deployed and driven with viem.
 * A ContractWalletUser stands where the tests use a TestUser: it signs with one of the wallet's
 * owner keys (viem, EIP-191), wrapped for ERC-6492 while the wallet is counterfactual.
 */
import { readFileSync } from 'node:fs';
import solc from 'solc';
import {
  encodeFunctionData,
  getContractAddress,
  keccak256,
  toHex,
  serializeErc6492Signature,
} from 'viem';
import type { Abi, Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { LocalChain } from './local-chain.js';
import { templateInitializeBody } from '../wallet.js';

interface Artifact {
  readonly abi: Abi;
  readonly bytecode: Hex;
}

let compiled: { wallet: Artifact; factory: Artifact } | undefined;

/** solc's standard JSON, run once per test file. */
export function artifacts(): { wallet: Artifact; factory: Artifact } {
  if (compiled) return compiled;
  const source = readFileSync(new URL('./owned-wallet.sol', import.meta.url), 'utf8');
  const output = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: 'Solidity',
        sources: { 'owned-wallet.sol': { content: source } },
        settings: {
          evmVersion: 'shanghai',
          outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
        },
      }),
    ),
  );
  const errors = (output.errors ?? []).filter(
    (error: { severity: string }) => error.severity === 'error',
  );
  if (errors.length > 0) throw new Error(JSON.stringify(errors));
  const of = (name: string): Artifact => {
    const contract = output.contracts['owned-wallet.sol'][name];
    return { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
  };
  compiled = { wallet: of('OwnedWallet'), factory: of('WalletFactory') };
  return compiled;
}

// ganache's default gas limit (90,000) is too low for a contract creation.
const GAS = 3_000_000n;

async function deployed(chain: LocalChain, artifact: Artifact, args: unknown[]): Promise<Hex> {
  const hash = await chain.walletClient.deployContract({
    abi: artifact.abi,
    bytecode: artifact.bytecode,
    args,
    gas: GAS,
  });
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
  if (!receipt.contractAddress) throw new Error('deployment failed');
  return receipt.contractAddress;
}

export async function deployFactory(chain: LocalChain): Promise<Hex> {
  return deployed(chain, artifacts().factory, []);
}

let counter = 0;

export class ContractWalletUser {
  readonly username = `cw_${process.pid}_${++counter}_${Math.floor(Math.random() * 1e6)}`.slice(
    0,
    32,
  );
  /** The key that signs for the wallet now (an owner, or a stranger in refusal tests). */
  signer: PrivateKeyAccount;
  /** Set while the wallet is not deployed: signatures are wrapped for ERC-6492. */
  private counterfactual: { factory: Hex; factoryData: Hex } | undefined;

  private constructor(
    private readonly chain: LocalChain,
    readonly address: Hex,
    readonly owner: PrivateKeyAccount,
    counterfactual?: { factory: Hex; factoryData: Hex },
  ) {
    this.signer = owner;
    this.counterfactual = counterfactual;
  }

  /** A deployed OwnedWallet with one owner. */
  static async deploy(chain: LocalChain): Promise<ContractWalletUser> {
    const owner = privateKeyToAccount(generatePrivateKey());
    const address = await deployed(chain, artifacts().wallet, [owner.address]);
    return new ContractWalletUser(chain, address, owner);
  }

  /** A wallet of `factory` that is not deployed: its CREATE2 address, ERC-6492 signatures. */
  static counterfactual(chain: LocalChain, factory: Hex): ContractWalletUser {
    const owner = privateKeyToAccount(generatePrivateKey());
    const salt = keccak256(toHex(`salt-${owner.address}`));
    const { wallet, factory: factoryArtifact } = artifacts();
    const initCode = `${wallet.bytecode}${encodeAbi(owner.address)}` as Hex;
    const address = getContractAddress({
      opcode: 'CREATE2',
      from: factory,
      salt,
      bytecode: initCode,
    });
    const factoryData = encodeFunctionData({
      abi: factoryArtifact.abi,
      functionName: 'deploy',
      args: [owner.address, salt],
    });
    return new ContractWalletUser(chain, address, owner, { factory, factoryData });
  }

  /** EIP-191 personal_sign by the current signer, wrapped for ERC-6492 while counterfactual. */
  async sign(message: string): Promise<Hex> {
    const signature = await this.signer.signMessage({ message });
    if (!this.counterfactual) return signature;
    return serializeErc6492Signature({
      address: this.counterfactual.factory,
      data: this.counterfactual.factoryData,
      signature,
    });
  }

  /** An owner's transaction on the wallet (gas paid by the owner, funded by the deployer first). */
  async asOwner(
    functionName: 'addOwner' | 'removeOwner',
    who: Hex,
    by: PrivateKeyAccount = this.owner,
  ): Promise<void> {
    const fund = await this.chain.walletClient.sendTransaction({
      to: by.address,
      value: 10n ** 17n,
      gas: 21_000n,
    });
    await this.chain.publicClient.waitForTransactionReceipt({ hash: fund });
    const { createWalletClient, http } = await import('viem');
    const client = createWalletClient({
      account: by,
      chain: this.chain.chain,
      transport: http(this.chain.publicClient.transport.url),
    });
    const hash = await client.writeContract({
      address: this.address,
      abi: artifacts().wallet.abi,
      functionName,
      args: [who],
      gas: 200_000n,
    });
    const receipt = await this.chain.publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`${functionName} reverted`);
  }

  /** The Initialize body of a template sign-in (TestUser's shape: helpers take either). */
  initializeBody(kind: 'register' | 'sign-in', extra: Record<string, unknown> = {}) {
    return templateInitializeBody(this, kind, extra);
  }
}

/** One address argument, ABI-encoded (a constructor's arguments after the init code). */
function encodeAbi(address: Hex): string {
  return address.slice(2).toLowerCase().padStart(64, '0');
}
