// Contract-wallet support (issue #28): EOA sign-ins/s with ETH_RPC_URLS unset and set (the EOA
// path must not touch the network, so both should match), and contract-wallet (ERC-1271)
// sign-ins/s against a local ganache chain (in this process, JSON-RPC over loopback HTTP).
// Every signature is made before the clock starts (ethers for EOAs, viem for the wallet's
// owner). BENCH_WALLETS_COUNT (default 1000) EOA sign-ins per configuration,
// BENCH_WALLETS_CONTRACT_COUNT (default 300) contract sign-ins, BENCH_SIGNIN_CONCURRENCY (32),
// BENCH_WALLETS_ROUNDS (2) alternations of off and on.
// Part of `npm run bench`; alone: `npm run build && node bench/wallets.mjs`.
import { readFileSync } from 'node:fs';
import ganache from 'ganache';
import solc from 'solc';
import { createPublicClient, createWalletClient, defineChain, http } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { prepare } from './sign-in.mjs';
import {
  freePort,
  printTable,
  postJson,
  processCpuSeconds,
  startService,
  timedRequests,
} from './support.mjs';

const COUNT = Number(process.env.BENCH_WALLETS_COUNT ?? 1000);
const CONTRACT_COUNT = Number(process.env.BENCH_WALLETS_CONTRACT_COUNT ?? 300);
const CONCURRENCY = Number(process.env.BENCH_SIGNIN_CONCURRENCY ?? 32);
const ROUNDS = Number(process.env.BENCH_WALLETS_ROUNDS ?? 2);
const CHAIN_ID = 1337;

const signInMessage = (address, timestampMs) =>
  [
    'Service Sign In',
    '',
    'I confirm that I own this wallet and want to sign in to Service.',
    '',
    `Wallet: ${address}`,
    `Timestamp: ${timestampMs}`,
  ].join('\n');

async function eoaSignIns(env) {
  const service = await startService({
    LOG_LEVEL: 'warn',
    RATE_LIMITS_ENABLED: 'false',
    SIGNATURE_WORKERS: '0',
    ...env,
  });
  const base = `http://127.0.0.1:${service.httpPort}`;
  try {
    const users = await prepare(COUNT, `w${Date.now() % 100000}`);
    for (const user of users)
      await postJson(`${base}/api/v1/initialize`, JSON.parse(user.registration));
    const cpuBefore = processCpuSeconds(service.pid);
    const timed = await timedRequests(users.length, CONCURRENCY, async (i) => {
      const response = await fetch(`${base}/api/v1/initialize`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: users[i].signIn,
      });
      await response.text();
      return response.status === 200 ? undefined : `HTTP ${response.status}`;
    });
    // The service's own CPU per sign-in: less at the mercy of other jobs than the rate.
    const cpuMs = ((processCpuSeconds(service.pid) - cpuBefore) * 1000) / users.length;
    return { ...timed, serviceCpuMsPerSignIn: Number(cpuMs.toFixed(2)) };
  } finally {
    await service.stop();
  }
}

async function startChain() {
  const key = generatePrivateKey();
  const server = ganache.server({
    chain: { hardfork: 'shanghai', chainId: CHAIN_ID },
    logging: { quiet: true },
    wallet: { accounts: [{ secretKey: key, balance: '0x3635c9adc5dea00000' }] },
  });
  const port = await freePort();
  await server.listen(port, '127.0.0.1');
  const url = `http://127.0.0.1:${port}`;
  const chain = defineChain({
    id: CHAIN_ID,
    name: 'ganache',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  });
  const source = readFileSync(
    new URL('../test/support/evm/owned-wallet.sol', import.meta.url),
    'utf8',
  );
  const output = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: 'Solidity',
        sources: { 'w.sol': { content: source } },
        settings: {
          evmVersion: 'shanghai',
          outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
        },
      }),
    ),
  );
  const { abi, evm } = output.contracts['w.sol'].OwnedWallet;
  const owner = privateKeyToAccount(generatePrivateKey());
  const deployer = createWalletClient({
    account: privateKeyToAccount(key),
    chain,
    transport: http(url),
  });
  const hash = await deployer.deployContract({
    abi,
    bytecode: `0x${evm.bytecode.object}`,
    args: [owner.address],
    gas: 3_000_000n,
  });
  const { contractAddress } = await createPublicClient({
    chain,
    transport: http(url),
  }).waitForTransactionReceipt({ hash });
  return { server, url, owner, wallet: contractAddress };
}

export async function benchWallets() {
  const chain = await startChain();
  const rpc = { ETH_RPC_URLS: `${CHAIN_ID}=${chain.url}`, ETH_DEFAULT_CHAIN_ID: String(CHAIN_ID) };
  // Off and on alternate, so that a change of the machine's load shows as a difference
  // between rounds of the same configuration rather than between the configurations.
  const rows = {};
  for (let round = 1; round <= ROUNDS; round++) {
    rows[`EOA, contract wallets off (round ${round})`] = await eoaSignIns({});
    rows[`EOA, contract wallets on (round ${round})`] = await eoaSignIns(rpc);
  }

  const service = await startService({
    LOG_LEVEL: 'warn',
    RATE_LIMITS_ENABLED: 'false',
    SIGNATURE_WORKERS: '0',
    KEYS_DHT: 'off',
    ...rpc,
  });
  try {
    const base = `http://127.0.0.1:${service.httpPort}`;
    const now = Date.now();
    const registration = [
      'Service Registration',
      `Wallet: ${chain.wallet}`,
      'Username: benchwallet',
      `Timestamp: ${now}`,
    ].join('\n');
    await postJson(`${base}/api/v1/initialize`, {
      wallet_address: chain.wallet,
      message: registration,
      signature: await chain.owner.signMessage({ message: registration }),
    });
    const bodies = [];
    for (let i = 0; i < CONTRACT_COUNT; i++) {
      const message = signInMessage(chain.wallet, now + 1 + i);
      bodies.push(
        JSON.stringify({
          wallet_address: chain.wallet,
          message,
          signature: await chain.owner.signMessage({ message }),
        }),
      );
    }
    const cpuBefore = processCpuSeconds(service.pid);
    const timed = await timedRequests(bodies.length, CONCURRENCY, async (i) => {
      const response = await fetch(`${base}/api/v1/initialize`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: bodies[i],
      });
      await response.text();
      return response.status === 200 ? undefined : `HTTP ${response.status}`;
    });
    // The chain (ganache, in this process) does the EVM work; this is the service's share.
    const cpuMs = ((processCpuSeconds(service.pid) - cpuBefore) * 1000) / bodies.length;
    rows['ERC-1271 contract wallet (ganache)'] = {
      ...timed,
      serviceCpuMsPerSignIn: Number(cpuMs.toFixed(2)),
    };
  } finally {
    await service.stop();
    await chain.server.close();
  }
  printTable('Wallet sign-ins (POST /api/v1/initialize, SIGNATURE_WORKERS=0)', rows);
}

if (import.meta.url === `file://${process.argv[1]}`) await benchWallets();
