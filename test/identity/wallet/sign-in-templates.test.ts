import { parseSignInMessage } from '../../../src/identity/wallet/sign-in-templates.js';
import { NOW_MS, SERVICE, VARIANTS, message, variant } from './sign-in-fixtures.js';

const WALLET = '0xAbCdEf0123456789abcdef0123456789ABCDEF01';

const parse = (text: string, service = SERVICE) => parseSignInMessage(text, service);

describe('parseSignInMessage', () => {
  it.each(VARIANTS.map((v) => [v.name, v] as const))('accepts %s', (_name, v) => {
    const result = parse(v.lines({ wallet: WALLET }).join('\n'));
    const expected = {
      kind: v.kind,
      wallet: WALLET,
      timestampMs: NOW_MS,
      ...(v.kind !== 'sign-in' && { username: 'alice' }),
      ...(v.kind === 'registration' && { displayName: 'Alice' }),
    };
    expect(result).toEqual({ ok: true, parsed: expected });
  });

  it('keeps the username and name exactly as written', () => {
    const result = parse(
      message('registration compact', {
        wallet: WALLET,
        username: ' Bob  Smith ',
        name: '  Dr. Ünal 🦊 ',
      }),
    );
    expect(result).toMatchObject({
      ok: true,
      parsed: { username: ' Bob  Smith ', displayName: '  Dr. Ünal 🦊 ' },
    });
  });

  it('accepts an empty Name (the display name is optional) but not an empty Username', () => {
    expect(parse(message('registration spaced', { wallet: WALLET, name: '' }))).toMatchObject({
      ok: true,
      parsed: { displayName: '' },
    });
    for (const name of ['registration compact', 'registration-short spaced'] as const) {
      expect(parse(message(name, { wallet: WALLET, username: '' }))).toEqual({
        ok: false,
        detail: expect.stringMatching(/Username/),
      });
    }
  });

  it('needs the label exactly, including the single space after the colon', () => {
    const lines = variant('registration compact').lines({ wallet: WALLET });
    for (const [index, bad] of [
      [4, 'Name:'],
      [4, 'name: Alice'],
      [2, `Wallet:\t${WALLET}`],
      [2, `Wallet:  ${WALLET}`],
      [5, `Timestamp:${NOW_MS}`],
    ] as const) {
      const mutated = [...lines];
      mutated[index] = bad;
      expect(parse(mutated.join('\n')).ok).toBe(false);
    }
  });

  it.each([
    ['0x' + 'a'.repeat(39)],
    ['0x' + 'a'.repeat(41)],
    ['0x' + 'g'.repeat(40)],
    ['0X' + 'a'.repeat(40)],
    ['a'.repeat(40)],
  ])('refuses the wallet %s', (wallet) => {
    expect(parse(message('sign-in', { wallet }))).toEqual({
      ok: false,
      detail: expect.stringMatching(/Wallet/),
    });
  });

  it.each([
    ['0', false],
    ['00', false],
    ['1', true],
    ['0001767225600000', true],
    ['9007199254740991', true],
    ['9007199254740992', false],
    ['9999999999999999999', false],
    ['12345678901234567890', false],
    ['-1767225600000', false],
    ['+1767225600000', false],
    ['1767225600000.0', false],
    ['1e12', false],
    ['0x1f', false],
    ['１７６７', false],
    ['', false],
  ])('Timestamp %p accepted: %p', (timestamp, accepted) => {
    const result = parse(message('registration-short compact', { wallet: WALLET, timestamp }));
    expect(result.ok).toBe(accepted);
    if (result.ok) expect(result.parsed.timestampMs).toBe(Number(timestamp));
    else expect(result.detail).toMatch(/Timestamp/);
  });

  it('compares the service name literally, never as a pattern', () => {
    const service = 'Acme.Chat (beta)+';
    expect(parse(message('sign-in', { wallet: WALLET, service }), service).ok).toBe(true);
    expect(
      parse(message('sign-in', { wallet: WALLET, service: 'AcmexChat (beta)+' }), service).ok,
    ).toBe(false);
    expect(
      parse(message('sign-in', { wallet: WALLET, service: 'Acme.Chat (beta)' }), service).ok,
    ).toBe(false);
    expect(
      parse(message('sign-in', { wallet: WALLET, service: 'acme.chat (beta)+' }), service).ok,
    ).toBe(false);
  });

  it('refuses a message with a carriage return anywhere, even inside a free-text field', () => {
    expect(parse(message('registration compact', { wallet: WALLET, name: 'Ali\rce' }))).toEqual({
      ok: false,
      detail: expect.stringMatching(/LF/),
    });
  });

  it('refuses mixing the two layouts of template 2', () => {
    const spaced = variant('registration spaced').lines({ wallet: WALLET });
    expect(parse([...spaced.slice(0, 1), ...spaced.slice(2)].join('\n')).ok).toBe(false);
    expect(parse([...spaced.slice(0, 3), ...spaced.slice(4)].join('\n')).ok).toBe(false);
  });

  it('refuses the statement of one template in the other, and extra lines', () => {
    const signIn = variant('sign-in').lines({ wallet: WALLET });
    const registrationTitle = [`${SERVICE} Registration`, ...signIn.slice(1)];
    expect(parse(registrationTitle.join('\n')).ok).toBe(false);
    const short = variant('registration-short compact').lines({ wallet: WALLET });
    expect(parse([...short.slice(0, 3), 'Name: Alice', ...short.slice(3)].join('\n')).ok).toBe(
      false,
    );
    expect(parse([...short, 'Nonce: 1'].join('\n')).ok).toBe(false);
    expect(parse('').ok).toBe(false);
  });

  it.each(['', ' Service', 'Service ', 'Ser\nvice', 'Service\r'])(
    'throws on the unusable service name %p',
    (service) => {
      expect(() => parseSignInMessage(message('sign-in', { wallet: WALLET }), service)).toThrow(
        TypeError,
      );
    },
  );
});
