/** The TOTP verifier with a controlled clock, against codes from otpauth: drift and replay. */
import * as OTPAuth from 'otpauth';
import { Totp } from '../../src/mfa/totp.js';

const NOW = 1_700_000_010_000;
const STEP = Math.floor(NOW / 30_000);
const totp = new Totp(() => NOW);
const secret = totp.newSecret();
const app = new OTPAuth.TOTP({
  secret: OTPAuth.Secret.fromBase32(secret),
  algorithm: 'SHA1',
  digits: 6,
  period: 30,
});
const codeAt = (steps: number) => app.generate({ timestamp: NOW + steps * 30_000 });

it('makes 160-bit base32 secrets and an otpauth URI that otpauth reads back', () => {
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  const parsed = OTPAuth.URI.parse(
    totp.provisioningUri('Service', 'alice', secret),
  ) as OTPAuth.TOTP;
  expect({ secret: parsed.secret.base32, issuer: parsed.issuer, label: parsed.label }).toEqual({
    secret,
    issuer: 'Service',
    label: 'alice',
  });
});

it('accepts the current step and one step either way, and nothing further', async () => {
  expect(await totp.check(secret, codeAt(0), -1)).toEqual({ valid: true, timeStep: STEP });
  expect(await totp.check(secret, codeAt(-1), -1)).toEqual({ valid: true, timeStep: STEP - 1 });
  expect(await totp.check(secret, codeAt(1), -1)).toEqual({ valid: true, timeStep: STEP + 1 });
  expect(await totp.check(secret, codeAt(-2), -1)).toEqual({ valid: false, reason: 'invalid' });
  expect(await totp.check(secret, codeAt(2), -1)).toEqual({ valid: false, reason: 'invalid' });
});

it('never accepts a step at or before the last accepted one', async () => {
  expect(await totp.check(secret, codeAt(0), STEP)).toEqual({ valid: false, reason: 'replayed' });
  expect(await totp.check(secret, codeAt(-1), STEP)).toEqual({ valid: false, reason: 'replayed' });
  expect(await totp.check(secret, codeAt(1), STEP)).toEqual({ valid: true, timeStep: STEP + 1 });
});

it('follows its clock', async () => {
  const later = new Totp(() => NOW + 90_000);
  expect(await later.check(secret, codeAt(0), -1)).toEqual({ valid: false, reason: 'invalid' });
  expect(await later.check(secret, codeAt(2), -1)).toEqual({ valid: true, timeStep: STEP + 2 });
});
