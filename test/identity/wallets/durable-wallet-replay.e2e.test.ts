/**
 * The new replay keys are as durable as today's spent signatures (issue #28): a SIWE nonce and
 * a contract wallet's accepted message stay spent across a restart of the process (in-memory
 * shared state gone) and a Redis that restarted empty, since they are spent in the store
 * (spent_signatures), not in shared state.
 */
import { generateSiweNonce } from 'viem/siwe';
import { siweMessage } from '../../support/siwe.js';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { ContractWalletUser } from '../../support/evm/contract-wallets.js';
import { CHAIN_ID, LocalChain } from '../../support/evm/local-chain.js';
import { deploymentForThisBlock, eventually } from '../../support/private-deployment.js';
import { Api, expectFailure, expectOk } from '../../support/session-api.js';
import { acrossRestart, startTestService } from '../../support/start-service.js';
import { TestUser } from '../../support/wallet.js';

/** A SIWE sign-up of a fresh EOA for the default domain and chain, and the nonce it spends. */
async function siweRegistration(nonce = generateSiweNonce(), user = new TestUser()) {
  const message = siweMessage(user.address, {
    domain: 'localhost',
    uri: 'http://localhost/',
    nonce,
  });
  const body = { wallet_address: user.address, username: user.username, message };
  return { user, nonce, body: { ...body, signature: await user.sign(message) } };
}

describe('a restart of the process', () => {
  it('refuses a spent SIWE nonce, in the same message and in a new one', async () => {
    await acrossRestart(
      async (service) => {
        const accepted = await siweRegistration();
        expectOk(await new Api(service.baseUrl).post('/api/v1/initialize', accepted.body));
        return accepted;
      },
      async (service, accepted) => {
        const api = new Api(service.baseUrl);
        expectFailure(await api.post('/api/v1/initialize', accepted.body), 401, 'REPLAY_DETECTED');
        const again = await siweRegistration(accepted.nonce, accepted.user);
        expectFailure(await api.post('/api/v1/initialize', again.body), 401, 'REPLAY_DETECTED');
      },
    );
  });

  it("refuses a contract wallet's accepted message signed again by another owner", async () => {
    const chain = new LocalChain();
    await chain.start();
    const env = {
      ETH_RPC_URLS: `${CHAIN_ID}=${chain.rpcUrl}`,
      ETH_DEFAULT_CHAIN_ID: String(CHAIN_ID),
    };
    try {
      const wallet = await ContractWalletUser.deploy(chain);
      const first = await startTestService(env, { keepData: true });
      const body = await wallet.initializeBody('register');
      try {
        expectOk(await new Api(first.baseUrl).post('/api/v1/initialize', body));
      } finally {
        await first.stop();
      }
      const second = await startTestService(env, { dataDir: first.dataDir });
      try {
        const api = new Api(second.baseUrl);
        expectFailure(await api.post('/api/v1/initialize', body), 401, 'REPLAY_DETECTED');
        // The same message signed by a second owner is the same message of the same wallet.
        const secondOwner = privateKeyToAccount(generatePrivateKey());
        await wallet.asOwner('addOwner', secondOwner.address);
        wallet.signer = secondOwner;
        const resigned = { ...body, signature: await wallet.sign(body.message) };
        expect(resigned.signature).not.toBe(body.signature);
        expectFailure(await api.post('/api/v1/initialize', resigned), 401, 'REPLAY_DETECTED');
      } finally {
        await second.stop();
      }
    } finally {
      await chain.stop();
    }
  });
});

describe('a Redis that restarted empty', () => {
  const running = deploymentForThisBlock('single process');

  it('still refuses a spent SIWE nonce', async () => {
    const accepted = await siweRegistration();
    expectOk(await running.api.post('/api/v1/initialize', accepted.body));
    await running.deployment.redis.restartEmpty();
    const answer = await eventually(async () => {
      const reply = await running.api.post('/api/v1/initialize', accepted.body);
      return reply.status === 503 ? undefined : reply;
    }, 20_000);
    expectFailure(answer, 401, 'REPLAY_DETECTED');
  });
});
