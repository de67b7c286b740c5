/**
 * The signer-recovery pool on real worker threads. Worker threads run compiled JavaScript, so
 * the pool under test is the compiled module of this test run (.test-build, with its worker
 * beside it); the expected answers come from the same function on this thread and from ethers.
 */
import { Wallet, hexlify, randomBytes } from 'ethers';
import { builtModule } from '../../support/built-service.js';
import { recoverPersonalSignAddress } from '../../../src/identity/wallet/eip191.js';
import type { SignerRecovery as SignerRecoveryClass } from '../../../src/identity/wallet/signer-recovery.js';
import { highSTwin } from './sign-in-fixtures.js';

const { SignerRecovery } = (await import(builtModule('identity/wallet/signer-recovery.js'))) as {
  SignerRecovery: typeof SignerRecoveryClass;
};

const logged: string[] = [];
const logger = {
  info: (_fields: object, message: string) => void logged.push(message),
  warn: (_fields: object, message: string) => void logged.push(message),
  error: (_fields: object, message: string) => void logged.push(message),
};

/** Signed messages with, for each, the signature and its wrong spellings that must fail with their own codes. */
async function signedCases(count: number): Promise<{ message: string; signature: string }[]> {
  const cases: { message: string; signature: string }[] = [];
  for (let i = 0; i < count; i++) {
    const wallet = new Wallet(hexlify(randomBytes(32)));
    const message = `case ${i} ✓`;
    const signature = await wallet.signMessage(message);
    cases.push({ message, signature });
    if (i % 4 === 0) cases.push({ message, signature: highSTwin(signature) }); // HIGH_S
    if (i % 4 === 1) cases.push({ message, signature: signature.slice(0, -2) }); // MALFORMED_SIGNATURE
    if (i % 4 === 2) cases.push({ message, signature: `${signature.slice(0, -2)}1d` }); // INVALID_RECOVERY_ID
    if (i % 4 === 3)
      cases.push({ message, signature: `0x${'f'.repeat(64)}${signature.slice(66)}` }); // SCALAR_OUT_OF_RANGE
  }
  return cases;
}

let pool: SignerRecoveryClass;
beforeEach(() => {
  logged.length = 0;
});
afterEach(async () => {
  await pool.stop();
});

it('answers exactly what the calling thread would, successes and every failure code', async () => {
  pool = new SignerRecovery({ workers: 2, logger });
  pool.start();
  const cases = await signedCases(40);
  const answers = await Promise.all(
    cases.map(({ message, signature }) => pool.recover(message, signature)),
  );
  expect(answers).toEqual(
    cases.map(({ message, signature }) => recoverPersonalSignAddress(message, signature)),
  );
  const codes = new Set(answers.map((answer) => (answer.ok ? 'ok' : answer.code)));
  expect(codes).toEqual(
    new Set(['ok', 'HIGH_S', 'MALFORMED_SIGNATURE', 'INVALID_RECOVERY_ID', 'SCALAR_OUT_OF_RANGE']),
  );
  expect(logged).toEqual(['signature workers started']);
});

it('recovers off the calling thread: the event loop turns while the workers are busy', async () => {
  pool = new SignerRecovery({ workers: 1, logger });
  pool.start();
  const cases = (await signedCases(60)).filter(({ signature }) => signature.length === 132);
  let settled = 0;
  const answers = cases.map(({ message, signature }) =>
    pool.recover(message, signature).then(() => settled++),
  );
  // Had they run here, every job would be settled before the next turn of the event loop.
  await new Promise((resolve) => setImmediate(resolve));
  expect(settled).toBeLessThan(cases.length);
  await Promise.all(answers);
  expect(settled).toBe(cases.length);
});

it('stop() lets every job handed out finish before the threads end', async () => {
  pool = new SignerRecovery({ workers: 2, logger });
  pool.start();
  const cases = await signedCases(100);
  const answers = Promise.all(
    cases.map(({ message, signature }) => pool.recover(message, signature)),
  );
  await pool.stop();
  expect(await answers).toEqual(
    cases.map(({ message, signature }) => recoverPersonalSignAddress(message, signature)),
  );
  // After the stop, a late caller is still answered, on its own thread.
  const [late] = cases;
  expect(await pool.recover(late!.message, late!.signature)).toEqual(
    recoverPersonalSignAddress(late!.message, late!.signature),
  );
});

it('SIGNATURE_WORKERS=0 recovers on the calling thread and starts no worker', async () => {
  pool = new SignerRecovery({ workers: 0, logger });
  pool.start();
  const [valid] = await signedCases(1);
  let settledFirst = false;
  const answer = pool
    .recover(valid!.message, valid!.signature)
    .then((result) => ((settledFirst = true), result));
  await Promise.resolve();
  expect(settledFirst).toBe(true);
  expect(await answer).toEqual(recoverPersonalSignAddress(valid!.message, valid!.signature));
  expect(logged).toEqual(['signature workers started']);
});

it('a worker that dies hands its jobs back, answered on the calling thread, and is replaced', async () => {
  pool = new SignerRecovery({ workers: 1, logger });
  pool.start();
  const cases = await signedCases(40);
  const [first] = cases;
  await pool.recover(first!.message, first!.signature); // the worker is up
  const answers = Promise.all(
    cases.map(({ message, signature }) => pool.recover(message, signature)),
  );
  // The worker is private to the pool: reached here only to kill it, as a crash would.
  const { threads } = pool as unknown as {
    threads: { worker: { terminate(): Promise<number> } }[];
  };
  await threads[0]!.worker.terminate();
  expect(await answers).toEqual(
    cases.map(({ message, signature }) => recoverPersonalSignAddress(message, signature)),
  );
  expect(logged).toContain('signature worker exited');
  expect(threads).toHaveLength(1);
  expect(await pool.recover(first!.message, first!.signature)).toEqual(
    recoverPersonalSignAddress(first!.message, first!.signature),
  );
});
