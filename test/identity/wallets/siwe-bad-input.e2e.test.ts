/**
 * Bad input on the new paths of Initialize (issue #28), with no chain configured: SIWE messages
 * that break EIP-4361 or the service's rules, and contract-wallet-shaped signatures, get the
 * documented envelope and status (400 or 401, never a 5xx); a contract wallet is refused like
 * any signature not made by the wallet, and an EOA signs in by SIWE without any network.
 */
import { siweMessage } from '../../support/siwe.js';
import { serviceForThisFile } from '../../support/service-for-tests.js';
import { TestUser } from '../../support/wallet.js';

const { api } = serviceForThisFile({ SIWE_DOMAINS: 'localhost:8080' });

const siwe = siweMessage;

it('an EOA signs in by SIWE with the default chain and no RPC configured', async () => {
  const user = new TestUser();
  const message = siwe(user.address);
  const reply = await api.post('/api/v1/initialize', {
    wallet_address: user.address,
    message,
    signature: await user.sign(message),
    username: user.username,
  });
  expect(reply).toMatchObject({ status: 200, body: { success: true, is_new_user: true } });
});

it('refuses bad SIWE input and contract-shaped signatures with the envelope, never a 5xx', async () => {
  const user = new TestUser();
  const good = siwe(user.address);
  const lower = good.replace(user.address, user.address.toLowerCase());
  const cases: [string, () => Promise<Record<string, unknown>>, number, string][] = [
    [
      'lowercase address (not EIP-55)',
      async () => ({ message: lower, signature: await user.sign(lower) }),
      401,
      'UNAUTHORIZED',
    ],
    [
      'CRLF line endings',
      async () => ({ message: good.replace(/\n/g, '\r\n'), signature: await user.sign(good) }),
      401,
      'UNAUTHORIZED',
    ],
    [
      'trailing newline',
      async () => ({ message: `${good}\n`, signature: await user.sign(`${good}\n`) }),
      401,
      'UNAUTHORIZED',
    ],
    [
      'short nonce',
      async () => {
        const m = good.replace(/Nonce: \w+/, 'Nonce: abc');
        return { message: m, signature: await user.sign(m) };
      },
      401,
      'UNAUTHORIZED',
    ],
    [
      'version 2',
      async () => {
        const m = good.replace('Version: 1', 'Version: 2');
        return { message: m, signature: await user.sign(m) };
      },
      401,
      'UNAUTHORIZED',
    ],
    [
      'bad issued-at',
      async () => {
        const m = good.replace(/Issued At: .*/, 'Issued At: yesterday');
        return { message: m, signature: await user.sign(m) };
      },
      401,
      'UNAUTHORIZED',
    ],
    [
      'another domain',
      async () => {
        const m = siwe(user.address, { domain: 'localhost:9999', uri: 'http://localhost:9999/' });
        return { message: m, signature: await user.sign(m) };
      },
      401,
      'SIWE_DOMAIN_MISMATCH',
    ],
    [
      'a chain with no configuration',
      async () => {
        const m = siwe(user.address, { chainId: 8453 });
        return { message: m, signature: await user.sign(m) };
      },
      401,
      'SIWE_CHAIN_MISMATCH',
    ],
    [
      'another wallet_address',
      async () => ({
        message: good,
        signature: await user.sign(good),
        wallet_address: new TestUser().address,
      }),
      401,
      'UNAUTHORIZED',
    ],
    [
      'signature not hex',
      async () => ({ message: good, signature: 'zz'.repeat(65) }),
      400,
      'INVALID_ARGUMENT',
    ],
    [
      "signature of 200 bytes (a contract wallet's, no chain configured)",
      async () => ({ message: good, signature: `0x${'ab'.repeat(200)}` }),
      400,
      'INVALID_ARGUMENT',
    ],
    [
      'ERC-6492-shaped signature',
      async () => ({ message: good, signature: `0x${'00'.repeat(96)}${'6492'.repeat(16)}` }),
      400,
      'INVALID_ARGUMENT',
    ],
    [
      'signature over the limit',
      async () => ({ message: good, signature: `0x${'ab'.repeat(4200)}` }),
      400,
      'INVALID_ARGUMENT',
    ],
    [
      'not the signer (no chain to ask)',
      async () => ({ message: good, signature: await new TestUser().sign(good) }),
      401,
      'UNAUTHORIZED',
    ],
  ];
  for (const [name, body, status, code] of cases) {
    const reply = await api.post('/api/v1/initialize', {
      wallet_address: user.address,
      username: user.username,
      ...(await body()),
    });
    expect({ name, status: reply.status, body: reply.body }).toMatchObject({
      name,
      status,
      body: { success: false, code, error: expect.any(String) },
    });
  }
});
