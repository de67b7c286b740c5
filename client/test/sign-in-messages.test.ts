/**
 * The SDK's sign-in messages and proof of work, checked against the contract with independent
 * code: ethers recovers the signer of what the SDK's private-key signer signed, node:crypto
 * checks the proof of work, and the templates are compared with the layout auth.proto prints.
 */
import { createHash } from 'node:crypto';
import { verifyMessage } from 'ethers';
import { solveProofOfWork } from '../src/sign-in/proof-of-work.js';
import {
  registrationTemplate,
  signInTemplate,
  siweMessage,
} from '../src/sign-in/sign-in-messages.js';
import { newPrivateKey, privateKeySigner } from '../src/signer/private-key-signer.js';

const WALLET = '0xA0Cf798816D4b9b9866b5330EEa46a18382f251e';

describe('sign-in messages', () => {
  it('writes template 1 with its two blank lines and no trailing newline', () => {
    expect(signInTemplate('Chat', WALLET, 1700000000000)).toBe(
      'Chat Sign In\n\nI confirm that I own this wallet and want to sign in to Chat.\n\n' +
        `Wallet: ${WALLET}\nTimestamp: 1700000000000`,
    );
  });

  it('writes the compact registration template with username and name', () => {
    expect(registrationTemplate('Chat', WALLET, 'alice', 'Alice A', 1700000000000)).toBe(
      'Chat Registration\nI confirm that I own this wallet and want to register with Chat.\n' +
        `Wallet: ${WALLET}\nUsername: alice\nName: Alice A\nTimestamp: 1700000000000`,
    );
  });

  it('writes an EIP-4361 message with a fresh nonce, valid five minutes', () => {
    const now = new Date('2026-11-27T09:00:00.000Z');
    const options = { domain: 'localhost:8080', uri: 'http://localhost:8080/app/' };
    const first = siweMessage(options, WALLET, now);
    expect(first).toMatch(
      /^localhost:8080 wants you to sign in with your Ethereum account:\n0xA0Cf798816D4b9b9866b5330EEa46a18382f251e\n\n\nURI: http:\/\/localhost:8080\/app\/\nVersion: 1\nChain ID: 1\nNonce: [A-Za-z0-9]{16}\nIssued At: 2026-11-27T09:00:00.000Z\nExpiration Time: 2026-11-27T09:05:00.000Z$/,
    );
    expect(siweMessage(options, WALLET, now)).not.toBe(first);
  });

  it('signs with EIP-191 personal_sign: ethers recovers the wallet', async () => {
    const signer = privateKeySigner(newPrivateKey());
    const message = signInTemplate('Service', await signer.address(), Date.now());
    expect(verifyMessage(message, await signer.signMessage(message))).toBe(await signer.address());
  });
});

describe('proof of work', () => {
  it('finds a nonce whose sha256(message ‖ nonce) has the leading zero bits asked for', async () => {
    const message = registrationTemplate('Service', WALLET, 'alice', 'Alice', 1700000000000);
    const nonce = await solveProofOfWork(message, 12);
    const digest = createHash('sha256')
      .update(message + nonce, 'utf8')
      .digest();
    expect(digest[0]).toBe(0);
    expect(digest[1]! >> 4).toBe(0);
    // The first such nonce: every smaller decimal nonce fails.
    const failures = Array.from({ length: Number(nonce) }, (_, counter) => {
      const bytes = createHash('sha256')
        .update(message + String(counter), 'utf8')
        .digest();
      return bytes[0] === 0 && bytes[1]! >> 4 === 0;
    });
    expect(failures).not.toContain(true);
  });
});
