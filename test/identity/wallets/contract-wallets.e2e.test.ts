/**
 * Contract wallets everywhere a wallet signs (issue #28), against a real EVM: ganache's JSON-RPC
 * server on loopback (behind a relay the test stops and freezes), solc-compiled wallets, viem
 * signatures. A deployed ERC-1271 wallet and an ERC-6492 counterfactual one register and sign
 * in by template and by SIWE; refusals carry their documented codes; an outage of the chain is
 * a 503 with Retry-After and the service recovers with it; X-Signature, guardian approvals and
 * key bindings work for contract wallets; EOAs keep working beside them.
 */
import { siweMessage } from '../../support/siwe.js';
import type { SiweFields } from '../../support/siwe.js';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Hex } from 'viem';
import { serviceForThisFile } from '../../support/service-for-tests.js';
import { ContractWalletUser, deployFactory } from '../../support/evm/contract-wallets.js';
import { CHAIN_ID, LocalChain } from '../../support/evm/local-chain.js';
import { KeyOwner, keyBindingMessage } from '../../support/key-bundles.js';
import { ContractWallets } from '../../../src/identity/wallet/contract-wallets.js';
import { recoverPersonalSignAddress } from '../../../src/identity/wallet/eip191.js';
import { WalletSignatures } from '../../../src/identity/wallet/wallet-signatures.js';
import {
  InvalidKeyRecordError,
  KeyRecordVerifier,
} from '../../../src/keys/directory/key-record-rules.js';
import { TestUser, bearer, signIn } from '../../support/wallet.js';
import type { SignedIn } from '../../support/wallet.js';
import { approve, initiate, reject, setupRecovery } from '../../recovery/recovery-support.js';

// Per-test timeouts: jest's default (the project's config) is enough for a local chain.

const chain = new LocalChain();
let factory: Hex;

beforeAll(async () => {
  await chain.start();
  factory = await deployFactory(chain);
});
afterAll(() => chain.stop());

const { api } = serviceForThisFile(() => ({
  ETH_RPC_URLS: `${CHAIN_ID}=${chain.rpcUrl}`,
  ETH_DEFAULT_CHAIN_ID: String(CHAIN_ID),
  ETH_RPC_TIMEOUT: '700ms',
  SIWE_DOMAINS: 'app.example.com,localhost:8080',
  KEYS_DHT: 'off',
  RECOVERY_HOUR: '40ms',
}));

type Signer = ContractWalletUser | TestUser;

const initialize = (body: unknown) => api.post('/api/v1/initialize', body);

function siweFor(address: string, overrides: SiweFields = {}) {
  return siweMessage(address, {
    domain: 'app.example.com',
    uri: 'https://app.example.com/login',
    chainId: CHAIN_ID,
    statement: 'Sign in to the messaging service.',
    ...overrides,
  });
}

async function siweBody(
  user: Signer,
  overrides: Parameters<typeof siweMessage>[1] = {},
  extra = {},
) {
  const message = siweFor(user.address, overrides);
  return { wallet_address: user.address, message, signature: await user.sign(message), ...extra };
}

async function registered(user: ContractWalletUser): Promise<SignedIn> {
  return signIn(api.url(''), user as unknown as TestUser, 'register');
}

describe('a deployed ERC-1271 wallet', () => {
  it('registers and signs in by template and by SIWE; a reused nonce is a replay', async () => {
    const wallet = await ContractWalletUser.deploy(chain);
    const created = await initialize(await wallet.initializeBody('register'));
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      success: true,
      is_new_user: true,
      user: { address: wallet.address.toLowerCase(), username: wallet.username },
    });
    expect((await initialize(await wallet.initializeBody('sign-in'))).status).toBe(200);

    const body = await siweBody(wallet);
    const signedIn = await initialize(body);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body).toMatchObject({ success: true, is_new_user: false });
    // The same message again, and another message with the same nonce: both replays.
    expect(await initialize(body)).toMatchObject({
      status: 401,
      body: { success: false, code: 'REPLAY_DETECTED' },
    });
    const nonce = /Nonce: (\w+)/.exec(body.message)![1]!;
    const sameNonce = await siweBody(wallet, { nonce, statement: 'Another message.' });
    expect(await initialize(sameNonce)).toMatchObject({
      status: 401,
      body: { code: 'REPLAY_DETECTED' },
    });
  });

  it('refuses a non-owner, an owner removed on chain, and SIWE for another domain, chain or time', async () => {
    const wallet = await ContractWalletUser.deploy(chain);
    expect((await initialize(await wallet.initializeBody('register'))).status).toBe(200);

    const stranger = privateKeyToAccount(generatePrivateKey());
    wallet.signer = stranger;
    expect(await initialize(await wallet.initializeBody('sign-in'))).toMatchObject({
      status: 401,
      body: { success: false, code: 'UNAUTHORIZED' },
    });
    expect(await initialize(await siweBody(wallet))).toMatchObject({
      status: 401,
      body: { code: 'UNAUTHORIZED' },
    });

    // A second owner signs in, then is removed on chain by the first: refused from then on.
    await wallet.asOwner('addOwner', stranger.address);
    expect((await initialize(await wallet.initializeBody('sign-in'))).status).toBe(200);
    await wallet.asOwner('removeOwner', stranger.address);
    expect(await initialize(await wallet.initializeBody('sign-in'))).toMatchObject({
      status: 401,
      body: { code: 'UNAUTHORIZED' },
    });

    wallet.signer = wallet.owner;
    const refused = [
      [{ domain: 'evil.example.com', uri: 'https://evil.example.com/' }, 'SIWE_DOMAIN_MISMATCH'],
      [{ uri: 'https://evil.example.com/login' }, 'SIWE_DOMAIN_MISMATCH'],
      [{ chainId: 10 }, 'SIWE_CHAIN_MISMATCH'],
      [{ issuedAt: new Date(Date.now() - 6 * 60_000) }, 'EXPIRED_SIGNATURE'],
      [{ expirationTime: new Date(Date.now() - 1000) }, 'EXPIRED_SIGNATURE'],
      [{ notBefore: new Date(Date.now() + 60_000) }, 'EXPIRED_SIGNATURE'],
    ] as const;
    for (const [overrides, code] of refused) {
      expect({
        overrides,
        reply: await initialize(await siweBody(wallet, overrides)),
      }).toMatchObject({ reply: { status: 401, body: { success: false, code } } });
    }
    expect(
      (await initialize(await siweBody(wallet, { expirationTime: new Date(Date.now() + 60_000) })))
        .status,
    ).toBe(200);
  });
});

describe('an ERC-6492 counterfactual wallet (not deployed)', () => {
  it('registers by template and signs in by SIWE, with no deployment on chain', async () => {
    const wallet = ContractWalletUser.counterfactual(chain, factory);
    expect(await chain.publicClient.getCode({ address: wallet.address })).toBeUndefined();
    expect((await initialize(await wallet.initializeBody('register'))).status).toBe(200);
    expect((await initialize(await siweBody(wallet))).status).toBe(200);
    // The universal validator deploys it only inside the eth_call.
    expect(await chain.publicClient.getCode({ address: wallet.address })).toBeUndefined();
  });

  it('registers by SIWE with the username of the request body', async () => {
    const wallet = ContractWalletUser.counterfactual(chain, factory);
    const reply = await initialize(await siweBody(wallet, {}, { username: wallet.username }));
    expect(reply).toMatchObject({
      status: 200,
      body: { is_new_user: true, user: { username: wallet.username } },
    });
  });
});

describe('EOAs beside contract wallets', () => {
  it('sign in by template and by SIWE (EIP-55 address) as before', async () => {
    const user = new TestUser();
    await signIn(api.url(''), user, 'register');
    expect((await initialize(await user.initializeBody('sign-in'))).status).toBe(200);
    expect((await initialize(await siweBody(user))).status).toBe(200);
  });
});

describe('an outage of the chain', () => {
  afterEach(async () => {
    chain.freeze(false);
    await chain.stopRelay();
    await chain.openRelay();
  });

  it('answers 503 with Retry-After (refused or hanging endpoint), never 401, and recovers; EOAs are untouched', async () => {
    const wallet = await ContractWalletUser.deploy(chain);
    expect((await initialize(await wallet.initializeBody('register'))).status).toBe(200);
    const eoa = new TestUser();
    await signIn(api.url(''), eoa, 'register');

    await chain.stopRelay();
    const down = await initialize(await wallet.initializeBody('sign-in'));
    expect(down).toMatchObject({ status: 503, body: { success: false, code: 'UNAVAILABLE' } });
    expect(Number(down.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await initialize(await eoa.initializeBody('sign-in'))).status).toBe(200);

    chain.freeze(true);
    await chain.openRelay();
    const started = Date.now();
    const hanging = await initialize(await siweBody(wallet));
    expect(hanging).toMatchObject({ status: 503, body: { code: 'UNAVAILABLE' } });
    expect(Date.now() - started).toBeLessThan(5_000);

    chain.freeze(false);
    await chain.stopRelay();
    await chain.openRelay();
    // The signature refused for the outage was not spent: the same body works now.
    expect((await initialize(await wallet.initializeBody('sign-in'))).status).toBe(200);
  });

  it('X-Signature, a guardian decision and a key publish answer 503 too, and store nothing', async () => {
    const owner = await registered(await ContractWalletUser.deploy(chain));
    const guardian = await registered(await ContractWalletUser.deploy(chain));
    const config = { guardians: [guardian.user.address], min_guardians_required: 1 };
    expect((await setupRecovery(api, owner, config)).status).toBe(200);
    const opened = await initiate(api, owner.user.address.toLowerCase(), new TestUser());
    expect(opened.status).toBe(200);
    const keys = new KeyOwner(owner.user);

    await chain.stopRelay();
    const setup = await setupRecovery(api, owner, config);
    expect(setup).toMatchObject({ status: 503, body: { code: 'UNAVAILABLE' } });
    expect(setup.headers.get('retry-after')).toMatch(/^[1-9]/);
    const approval = await approve(api, guardian, opened.body.request);
    expect(approval).toMatchObject({ status: 503, body: { code: 'UNAVAILABLE' } });
    const published = await api.post('/api/v1/keys', await keys.bundle(), bearer(owner));
    expect(published).toMatchObject({ status: 503, body: { code: 'UNAVAILABLE' } });
    expect((await api.get('/api/v1/keys', bearer(owner))).status).toBe(404);

    await chain.openRelay();
    expect((await approve(api, guardian, opened.body.request)).status).toBe(200);
    expect((await api.post('/api/v1/keys', await keys.bundle(), bearer(owner))).status).toBe(200);
  });
});

describe('an endpoint that serves another chain than ETH_RPC_URLS says', () => {
  // The same address may be another wallet with other owners on another chain: never decide.
  const misconfigured = serviceForThisFile(() => ({
    ETH_RPC_URLS: `1=${chain.rpcUrl}`,
    ETH_DEFAULT_CHAIN_ID: '1',
  }));

  it('refuses to verify there (503), while EOAs sign in', async () => {
    const wallet = await ContractWalletUser.deploy(chain);
    const reply = await misconfigured.api.post(
      '/api/v1/initialize',
      await wallet.initializeBody('register'),
    );
    expect(reply).toMatchObject({ status: 503, body: { code: 'UNAVAILABLE' } });
    await signIn(misconfigured.api.url(''), new TestUser(), 'register');
  });
});

describe('the other wallet signatures', () => {
  it('X-Signature (recovery setup) and a guardian approval by contract wallets', async () => {
    const owner = await registered(await ContractWalletUser.deploy(chain));
    const guardian = await registered(ContractWalletUser.counterfactual(chain, factory));
    const setup = await setupRecovery(api, owner, {
      guardians: [guardian.user.address],
      min_guardians_required: 1,
      time_lock_hours: 24,
    });
    expect(setup).toMatchObject({ status: 200, body: { success: true } });
    // Without the owner's signature, and signed by a stranger: refused.
    expect(
      (
        await setupRecovery(
          api,
          owner,
          { guardians: [guardian.user.address], min_guardians_required: 1 },
          { sign: false },
        )
      ).status,
    ).toBe(401);
    (owner.user as unknown as ContractWalletUser).signer =
      privateKeyToAccount(generatePrivateKey());
    expect(
      (
        await setupRecovery(api, owner, {
          guardians: [guardian.user.address],
          min_guardians_required: 1,
        })
      ).status,
    ).toBe(401);

    const opened = await initiate(api, owner.user.address.toLowerCase(), new TestUser());
    expect(opened.status).toBe(200);
    const approved = await approve(api, guardian, opened.body.request);
    expect(approved).toMatchObject({ status: 200, body: { success: true } });
  });

  it('a guardian rejection by a contract wallet, and none by a stranger signing for it', async () => {
    const owner = await registered(await ContractWalletUser.deploy(chain));
    const guardian = await registered(await ContractWalletUser.deploy(chain));
    const config = { guardians: [guardian.user.address], min_guardians_required: 1 };
    expect((await setupRecovery(api, owner, config)).status).toBe(200);
    const opened = await initiate(api, owner.user.address.toLowerCase(), new TestUser());
    expect(opened.status).toBe(200);
    const wallet = guardian.user as unknown as ContractWalletUser;
    wallet.signer = privateKeyToAccount(generatePrivateKey());
    expect((await reject(api, guardian, opened.body.request)).status).toBe(401);
    wallet.signer = wallet.owner;
    expect(await reject(api, guardian, opened.body.request)).toMatchObject({
      status: 200,
      body: { success: true },
    });
  });

  it('a key bundle bound by a contract wallet is published, served, and re-verified by peers at its block', async () => {
    const wallet = await ContractWalletUser.deploy(chain);
    const session = await registered(wallet);
    const keys = new KeyOwner(wallet as unknown as TestUser);
    const published = await keys.bundle();
    expect((await api.post('/api/v1/keys', published, bearer(session))).status).toBe(200);
    const viewer = await signIn(api.url(''), new TestUser(), 'register');
    const fetched = await api.get(`/api/v1/keys/${wallet.address}`, bearer(viewer));
    expect(fetched.status).toBe(200);
    // A client checks the binding on chain with its own library (viem), as keys.proto says.
    const binding = fetched.body.keyBundle.walletBinding;
    const message = keyBindingMessage(keys.address, keys.ed25519PublicKey, binding.timestamp);
    expect(
      await chain.publicClient.verifyMessage({
        address: wallet.address,
        message,
        signature: binding.signature,
      }),
    ).toBe(true);

    // A binding signed by a stranger is refused at publish.
    const stranger = new KeyOwner(wallet as unknown as TestUser);
    wallet.signer = privateKeyToAccount(generatePrivateKey());
    const forged = await api.post('/api/v1/keys', await stranger.bundle(), bearer(session));
    expect(forged).toMatchObject({ status: 400, body: { code: 'INVALID_WALLET_BINDING' } });
  });

  it('DHT peers: a contract binding is checked at its recorded block, refused without an endpoint or when forged', async () => {
    const wallet = await ContractWalletUser.deploy(chain);
    const keys = new KeyOwner(wallet as unknown as TestUser);
    const { oneTimePreKeys: _prekeys, ...signed } = await keys.bundle();
    const blockNumber = Number(await chain.publicClient.getBlockNumber());
    const record = (binding: object) =>
      new TextEncoder().encode(
        JSON.stringify({
          address: keys.address,
          ...signed,
          walletBinding: { ...signed.walletBinding, ...binding },
        }),
      );
    const contracts = new ContractWallets({
      rpcUrls: new Map([[CHAIN_ID, chain.rpcUrl]]),
      defaultChainId: CHAIN_ID,
      rpcTimeoutMs: 2000,
    });
    const peer = new KeyRecordVerifier(
      'Service',
      100,
      new WalletSignatures(recoverPersonalSignAddress, contracts),
    );
    const genuine = record({ chainId: CHAIN_ID, blockNumber });
    await expect(Promise.resolve(peer.check(keys.address, genuine))).resolves.toMatchObject({
      address: keys.address,
    });

    // The owner is removed later: the binding stays valid at its recorded block, not after.
    await wallet.asOwner('addOwner', chain.deployer.address);
    await wallet.asOwner('removeOwner', wallet.owner.address, chain.deployer);
    const fresh = new KeyRecordVerifier(
      'Service',
      100,
      new WalletSignatures(recoverPersonalSignAddress, contracts),
    );
    await expect(Promise.resolve(fresh.check(keys.address, genuine))).resolves.toMatchObject({
      address: keys.address,
    });
    const latest = Number(await chain.publicClient.getBlockNumber());
    await expect(
      Promise.resolve(
        fresh.check(keys.address, record({ chainId: CHAIN_ID, blockNumber: latest })),
      ),
    ).rejects.toThrow(InvalidKeyRecordError);

    // A peer without an endpoint for the chain, and the same record without its block: refused.
    const withoutChain = new KeyRecordVerifier(
      'Service',
      100,
      new WalletSignatures(recoverPersonalSignAddress, undefined),
    );
    expect(() => withoutChain.check(keys.address, genuine)).toThrow(InvalidKeyRecordError);
    expect(() => peer.check(keys.address, record({}))).toThrow(InvalidKeyRecordError);
  });
});
