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
 *
 * Each endpoint's `eth_chainId` is confirmed once before its first verdict is trusted: the same
 * wallet address can belong to different owners on different chains, so an endpoint of another
 * chain configured by mistake must not decide. A mismatch is logged and answered 503 (the
 * operator's error, not the client's), and asked again on the next verification.
 */
import { createPublicClient, custom, http, HttpRequestError, TimeoutError } from 'viem';
import type { EIP1193RequestFn, PublicClient } from 'viem';
import type { WalletSettings } from '../../platform/config/settings.js';
import { DependencyUnavailableError } from '../../platform/errors/dependency-unavailable.js';
import type { Logger } from '../../platform/logging/logger.js';
import type {
  ContractSignatureCheck,
  ContractSignatureVerdict,
  ContractSignatureVerifier,
} from './contract-signature-verifier.js';

/** How outages of the chain are named in logs and in the 503's message. */
export const CHAIN_DEPENDENCY = 'ethereum-rpc';

type ChainSettings = Pick<WalletSettings, 'rpcUrls' | 'defaultChainId' | 'rpcTimeoutMs'>;

export class ContractWallets implements ContractSignatureVerifier {
  readonly defaultChainId: number;
  /** Chains whose endpoint answered its own chain id: confirmed once per process. */
  private readonly confirmed = new Set<number>();
  /** Mismatches already logged: once each, not once per sign-in. */
  private readonly reported = new Set<number>();

  constructor(
    private readonly settings: ChainSettings,
    private readonly logger?: Pick<Logger, 'error'>,
  ) {
    this.defaultChainId = settings.defaultChainId;
  }

  supports(chainId: number): boolean {
    return this.settings.rpcUrls.has(chainId);
  }

  async verify(check: ContractSignatureCheck): Promise<ContractSignatureVerdict> {
    const url = this.settings.rpcUrls.get(check.chainId);
    // Callers ask supports() first: reaching here without an endpoint is a bug of ours.
    if (url === undefined) throw new Error(`no JSON-RPC endpoint for chain ${check.chainId}`);
    const { client, transportFailure } = this.clientFor(url);
    try {
      await this.confirmChain(client, check.chainId);
      const blockNumber = check.blockNumber ?? (await client.getBlockNumber({ cacheTime: 0 }));
      const valid = await client.verifyHash({
        address: check.address,
        hash: check.hash,
        signature: check.signature,
        blockNumber,
      });
      const failure = transportFailure();
      if (failure !== undefined) throw failure;
      return { valid, blockNumber };
    } catch (error) {
      if (error instanceof DependencyUnavailableError) throw error;
      throw new DependencyUnavailableError(
        CHAIN_DEPENDENCY,
        `chain ${check.chainId} could not verify a contract-wallet signature`,
        { cause: transportFailure() ?? error },
      );
    }
  }

  /** A client of its own (see the module comment) and what its transport saw go wrong. */
  private clientFor(url: string): {
    client: PublicClient;
    transportFailure: () => Error | undefined;
  } {
    let failure: Error | undefined;
    // No retries: the timeout bounds each request, and clients retry on 503 themselves.
    const transport = http(url, { timeout: this.settings.rpcTimeoutMs, retryCount: 0 })({});
    const request: EIP1193RequestFn = async (args) => {
      try {
        return await transport.request(args);
      } catch (error) {
        if (error instanceof HttpRequestError || error instanceof TimeoutError) failure ??= error;
        throw error;
      }
    };
    const client = createPublicClient({ transport: custom({ request }) });
    return { client, transportFailure: () => failure };
  }

  private async confirmChain(client: PublicClient, chainId: number): Promise<void> {
    if (this.confirmed.has(chainId)) return;
    const answered = await client.getChainId();
    if (answered !== chainId) {
      if (!this.reported.has(chainId)) {
        this.reported.add(chainId);
        this.logger?.error(
          { configured: chainId, answered },
          'ETH_RPC_URLS: the endpoint of this chain serves another chain; contract wallets refused',
        );
      }
      const problem = `the endpoint of chain ${chainId} serves chain ${answered}`;
      throw new DependencyUnavailableError(CHAIN_DEPENDENCY, problem);
    }
    this.confirmed.add(chainId);
  }
}
