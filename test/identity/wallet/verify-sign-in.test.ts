import { Wallet } from 'ethers';
import {
  SIGN_IN_TOLERANCE_MS,
  verifySignInMessage,
  type SignInAttempt,
} from '../../../src/identity/wallet/verify-sign-in.js';
import { SignerRecovery } from '../../../src/identity/wallet/signer-recovery.js';
import { silentLogger } from '../../support/silent-logger.js';
import {
  NOW_MS,
  SERVICE,
  VARIANTS,
  highSTwin,
  message,
  variant,
  type VariantName,
} from './sign-in-fixtures.js';

const alice = new Wallet(`0x${'42'.repeat(32)}`);
const mallory = new Wallet(`0x${'66'.repeat(32)}`);
const ALICE = alice.address; // EIP-55 mixed case

async function attempt(
  text: string,
  overrides: Partial<SignInAttempt> = {},
  signer = alice,
): Promise<SignInAttempt> {
  return {
    walletAddress: ALICE,
    message: text,
    signature: await signer.signMessage(text),
    serviceName: SERVICE,
    nowMs: NOW_MS,
    ...overrides,
  };
}

// On the calling thread: the worker threads run the same function, and are proven against the
// built service (test/identity/signin/signature-check.e2e.test.ts).
const signers = new SignerRecovery({ workers: 0, logger: silentLogger });
const verifyAttempt = (signed: SignInAttempt) => verifySignInMessage(signed, signers);

const verify = async (text: string, overrides: Partial<SignInAttempt> = {}, signer = alice) =>
  verifyAttempt(await attempt(text, overrides, signer));

const rejected = (reason: string) => ({ ok: false, reason, detail: expect.any(String) });

describe('verifySignInMessage: accepted', () => {
  it.each(VARIANTS.map((v) => [v.name, v] as const))('%s', async (_name, v) => {
    const text = v.lines({ wallet: ALICE }).join('\n');
    const signed = await attempt(text, { username: v.kind === 'sign-in' ? undefined : 'alice' });
    const result = await verifyAttempt(signed);
    expect(result).toEqual({
      ok: true,
      parsed: expect.objectContaining({ kind: v.kind, wallet: ALICE, timestampMs: NOW_MS }),
      address: ALICE.toLowerCase(),
      replayKey: signed.signature.slice(2, -2) + (signed.signature.endsWith('1b') ? '00' : '01'),
    });
  });

  it('binds the wallet case-insensitively on both sides', async () => {
    const lower = ALICE.toLowerCase();
    const upper = `0x${ALICE.slice(2).toUpperCase()}`;
    expect(
      await verify(message('sign-in', { wallet: lower }), { walletAddress: upper }),
    ).toMatchObject({ ok: true, address: lower });
    expect(
      await verify(message('sign-in', { wallet: upper }), { walletAddress: lower }),
    ).toMatchObject({ ok: true, address: lower });
  });

  it('needs no request username, and treats an empty one as absent', async () => {
    const text = message('registration-short spaced', { wallet: ALICE, username: 'alice' });
    expect((await verify(text)).ok).toBe(true);
    expect((await verify(text, { username: '' })).ok).toBe(true);
  });

  it('ignores a request username for template 1, which has no Username line', async () => {
    expect((await verify(message('sign-in', { wallet: ALICE }), { username: 'whoever' })).ok).toBe(
      true,
    );
  });

  it('hashes non-ASCII content by its UTF-8 byte length (signed by ethers)', async () => {
    const text = message('registration spaced', {
      wallet: ALICE,
      username: 'josé',
      name: 'Zoë 🦊 山田',
    });
    expect(await verify(text, { username: 'josé' })).toMatchObject({
      ok: true,
      parsed: { username: 'josé', displayName: 'Zoë 🦊 山田' },
    });
    expect(await verify(text, { username: 'jose\u0301' })).toEqual(rejected('UNAUTHORIZED'));
  });
});

describe('verifySignInMessage: check 1, template', () => {
  const withLines = (name: VariantName, edit: (lines: string[]) => string[]) =>
    edit(variant(name).lines({ wallet: ALICE })).join('\n');
  const swapAfterWallet = (lines: string[]) => {
    const at = lines.findIndex((line) => line.startsWith('Wallet: '));
    const copy = [...lines];
    [copy[at], copy[at + 1]] = [copy[at + 1] as string, copy[at] as string];
    return copy;
  };
  const beforeTimestamp = (lines: string[]) => [...lines.slice(0, -1), '', ...lines.slice(-1)];

  const cases: Array<[string, (name: VariantName) => string]> = [
    ['CRLF line endings', (name) => variant(name).lines({ wallet: ALICE }).join('\r\n')],
    ['a trailing newline', (name) => `${message(name, { wallet: ALICE })}\n`],
    ['a leading space', (name) => ` ${message(name, { wallet: ALICE })}`],
    ['a trailing space', (name) => `${message(name, { wallet: ALICE })} `],
    ['an extra blank line before Timestamp', (name) => withLines(name, beforeTimestamp)],
    ['a wrong service name', (name) => message(name, { wallet: ALICE, service: 'Servise' })],
    ['reordered lines', (name) => withLines(name, swapAfterWallet)],
    [
      'a 20-digit timestamp',
      (name) => message(name, { wallet: ALICE, timestamp: `0${NOW_MS}000000` }),
    ],
    ['a zero timestamp', (name) => message(name, { wallet: ALICE, timestamp: 0 })],
  ];

  describe.each(VARIANTS.map((v) => v.name))('%s', (name) => {
    it.each(cases)(
      'refuses %s as UNAUTHORIZED, before checking the signature',
      async (_case, build) => {
        const text = build(name);
        expect(await verify(text)).toEqual(rejected('UNAUTHORIZED'));
        // Even a malformed signature and wallet get the template's answer: check 1 comes first.
        expect(
          await verifyAttempt({ ...(await attempt(text)), signature: 'zz', walletAddress: 'nope' }),
        ).toEqual(rejected('UNAUTHORIZED'));
      },
    );

    it('refuses a seconds-resolution timestamp as EXPIRED_SIGNATURE', async () => {
      expect(
        await verify(message(name, { wallet: ALICE, timestamp: Math.floor(NOW_MS / 1000) })),
      ).toEqual(rejected('EXPIRED_SIGNATURE'));
    });
  });

  it.each(['sign-in', 'registration spaced', 'registration-short spaced'] as const)(
    'refuses a doubled blank line in %s',
    async (name) => {
      expect(
        await verify(withLines(name, (lines) => [lines[0] as string, '', ...lines.slice(1)])),
      ).toEqual(rejected('UNAUTHORIZED'));
    },
  );

  it.each(['sign-in', 'registration spaced'] as const)(
    'refuses %s with either blank line missing',
    async (name) => {
      for (const blank of [1, 3]) {
        expect(
          await verify(withLines(name, (lines) => lines.filter((_line, i) => i !== blank))),
        ).toEqual(rejected('UNAUTHORIZED'));
      }
    },
  );

  it('refuses template 1 without blank lines (it has one layout only)', async () => {
    expect(
      await verify(withLines('sign-in', (lines) => lines.filter((line) => line !== ''))),
    ).toEqual(rejected('UNAUTHORIZED'));
  });

  it('refuses any string that was accepted before 2026-08-12', async () => {
    expect(await verify(`Sign in to ${SERVICE} as ${ALICE} at ${NOW_MS}`)).toEqual(
      rejected('UNAUTHORIZED'),
    );
  });
});

describe('verifySignInMessage: check 2, wallet binding', () => {
  it('refuses a message for another wallet, even when that wallet signed it', async () => {
    const text = message('sign-in', { wallet: mallory.address });
    expect(await verify(text)).toEqual(rejected('UNAUTHORIZED'));
    expect(await verify(text, {}, mallory)).toEqual(rejected('UNAUTHORIZED'));
  });

  it.each([
    '',
    ALICE.slice(0, -1),
    ALICE.slice(2),
    `${ALICE}0`,
    `0X${ALICE.slice(2)}`,
    ` ${ALICE}`,
  ])('refuses the malformed wallet_address %p as INVALID_ARGUMENT', async (walletAddress) => {
    expect(await verify(message('sign-in', { wallet: ALICE }), { walletAddress })).toEqual(
      rejected('INVALID_ARGUMENT'),
    );
  });

  it.each([
    'registration compact',
    'registration spaced',
    'registration-short compact',
    'registration-short spaced',
  ] as const)('refuses a request username other than the one signed in %s', async (name) => {
    const text = message(name, { wallet: ALICE, username: 'alice' });
    for (const username of ['bob', 'Alice', 'alice ', ' alice']) {
      expect(await verify(text, { username })).toEqual(rejected('UNAUTHORIZED'));
    }
  });

  it('reports the binding before a bad signature', async () => {
    const signed = await attempt(message('sign-in', { wallet: mallory.address }));
    expect(await verifyAttempt({ ...signed, signature: 'zz' })).toEqual(rejected('UNAUTHORIZED'));
  });
});

describe('verifySignInMessage: check 3, signature', () => {
  const text = message('sign-in', { wallet: ALICE });

  it('refuses a signature by another wallet', async () => {
    expect(await verify(text, {}, mallory)).toEqual(rejected('UNAUTHORIZED'));
  });

  it('refuses a signature over another message', async () => {
    const signed = await attempt(message('sign-in', { wallet: ALICE, timestamp: NOW_MS + 1 }));
    expect(await verifyAttempt({ ...signed, message: text })).toEqual(rejected('UNAUTHORIZED'));
  });

  it.each([
    ['short', (sig: string) => sig.slice(0, -2)],
    ['long', (sig: string) => `${sig}00`],
    ['non-hex', (sig: string) => `${sig.slice(0, -3)}g1b`],
    ['v = 29', (sig: string) => `${sig.slice(0, -2)}1d`],
    ['v = 2', (sig: string) => `${sig.slice(0, -2)}02`],
  ])('refuses a malformed signature (%s) as INVALID_ARGUMENT', async (_case, mangle) => {
    const signed = await attempt(text);
    expect(await verifyAttempt({ ...signed, signature: mangle(signed.signature) })).toEqual(
      rejected('INVALID_ARGUMENT'),
    );
  });

  it('refuses a missing (empty) signature as UNAUTHORIZED, like any request with only one of the two', async () => {
    expect(await verifyAttempt({ ...(await attempt(text)), signature: '' })).toEqual(
      rejected('UNAUTHORIZED'),
    );
    expect(await verifyAttempt({ ...(await attempt(text)), message: '' })).toEqual(
      rejected('UNAUTHORIZED'),
    );
  });

  it('refuses the high-S twin of a signature that passes', async () => {
    const signed = await attempt(text);
    expect((await verifyAttempt(signed)).ok).toBe(true);
    const twin = await verifyAttempt({ ...signed, signature: highSTwin(signed.signature) });
    expect(twin).toEqual({
      ok: false,
      reason: 'UNAUTHORIZED',
      detail: expect.stringMatching(/high-S/),
    });
  });

  it('accepts every spelling of a signature under one replay key', async () => {
    const signed = await attempt(text);
    const sig = signed.signature;
    const bare = sig.slice(2, -2);
    const bit = sig.endsWith('1b') ? '00' : '01';
    const spellings = [
      sig,
      sig.slice(2),
      `0x${bare.toUpperCase()}${sig.slice(-2)}`,
      `0x${bare}${bit}`,
      `${bare.toUpperCase()}${bit}`,
    ];
    const keys: string[] = [];
    for (const signature of spellings) {
      const result = await verifyAttempt({ ...signed, signature });
      expect(result.ok).toBe(true);
      keys.push(result.ok ? result.replayKey : '');
    }
    expect(new Set(keys)).toEqual(new Set([`${bare}${bit}`]));
  });

  it('reports a bad signature before an expired timestamp', async () => {
    const stale = message('sign-in', { wallet: ALICE, timestamp: NOW_MS - 60 * 60_000 });
    expect(await verify(stale, {}, mallory)).toEqual(rejected('UNAUTHORIZED'));
    expect(await verify(stale)).toEqual(rejected('EXPIRED_SIGNATURE'));
  });
});

describe('verifySignInMessage: check 4, freshness', () => {
  const at = (offsetMs: number) =>
    verify(message('registration-short compact', { wallet: ALICE, timestamp: NOW_MS + offsetMs }));

  it('defaults to 5 minutes', () => {
    expect(SIGN_IN_TOLERANCE_MS).toBe(300_000);
  });

  it.each([0, 300_000, -300_000])('accepts a timestamp %i ms from server time', async (offset) => {
    expect((await at(offset)).ok).toBe(true);
  });

  it.each([300_001, -300_001, 24 * 3_600_000])(
    'refuses a timestamp %i ms from server time as EXPIRED_SIGNATURE',
    async (offset) => {
      expect(await at(offset)).toEqual(rejected('EXPIRED_SIGNATURE'));
    },
  );

  it('honours a custom tolerance', async () => {
    const text = message('sign-in', { wallet: ALICE, timestamp: NOW_MS - 1_000 });
    expect((await verify(text, { toleranceMs: 1_000 })).ok).toBe(true);
    expect(await verify(text, { toleranceMs: 999 })).toEqual(rejected('EXPIRED_SIGNATURE'));
  });
});
