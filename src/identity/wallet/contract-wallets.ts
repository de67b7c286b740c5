/**
 * The on-chain verifier of contract-wallet signatures (ContractSignatureVerifier) on the
 * JSON-RPC endpoints of ETH_RPC_URLS. viem's `verifyHash` does the work: ERC-1271
 * `isValidSignature` for a deployed wallet and, for an ERC-6492-wrapped signature, the
 * deployless universal validator (an `eth_call` without `to` that deploys the wallet in the
 * call's scratch state, then asks it): no ABI code of ours.
 *
 * viem turns any failed `eth_call` into "not valid", an unreachable node included. An outage
 * must answer 503, not 401 (a valid wallet must not be told its signature is wrong), so each
 * verification runs on its own client whose transport remembers a transport failure (HTTP
 * error, refused connection, timeout): then the verdict is discarded and
 * DependencyUnavailableError thrown. A JSON-RPC error answer (a revert) is the chain speaking.
 *
 * The block is read first and the call made at that block, so a verdict names the state it was
 * taken on (key bindings record it for DHT peers), and a dead endpoint fails fast there.
 */
import { createPublicClient, custom, http, HttpRequestError, TimeoutError } from 'viem';
import type { EIP1193RequestFn } from 'viem';
import { DependencyUnavailableError } from '../../platform/errors/dependency-unavailable.js';
import type { WalletSettings } from '../../platform/config/settings.js';
import type {
  ContractSignatureCheck,
  ContractSignatureVerdict,
  ContractSignatureVerifier,
} from './contract-signature-verifier.js';

/** How outages of the chain are named in logs and in the 503's message. */
export const CHAIN_DEPENDENCY = 'ethereum-rpc';

export class ContractWallets implements ContractSignatureVerifier {
  readonly defaultChainId: number;

  constructor(private readonly settings: Pick<WalletSettings, 'rpcUrls' | 'defaultChainId' | 'rpcTimeoutMs'>) {
    this.defaultChainId = settings.defaultChainId;
  }

  supports(chainId: number): boolean {
    return this.settings.rpcUrls.has(chainId);
  }

  async verify(check: ContractSignatureCheck): Promise<ContractSignatureVerdict> {
    const url = this.settings.rpcUrls.get(check.chainId);
    if (url === undefined) throw new Error(`no JSON-RPC endpoint for chain ${check.chainId}`);
    let transportFailure: unknown;
    // No retries: the timeout bounds each request, and a client retries on 503 itself.
    const transport = http(url, { timeout: this.settings.rpcTimeoutMs, retryCount: 0 })({});
    const request: EIP1193RequestFn = async (args) => {
      try {
        return await transport.request(args);
      } catch (error) {
        if (error instanceof HttpRequestError || error instanceof TimeoutError) transportFailure ??= error;
        throw error;
      }
    };
    const client = createPublicClient({ transport: custom({ request }) });
    try {
      const blockNumber = check.blockNumber ?? (await client.getBlockNumber({ cacheTime: 0 }));
      const valid = await client.verifyHash({
        address: check.address,
        hash: check.hash,
        signature: check.signature,
        blockNumber,
      });
      if (transportFailure !== undefined) throw transportFailure;
      return { valid, blockNumber };
    } catch (error) {
      throw new DependencyUnavailableError(
        CHAIN_DEPENDENCY,
        `chain ${check.chainId} could not verify a contract-wallet signature`,
        { cause: transportFailure ?? error },
      );
    }
  }
}
