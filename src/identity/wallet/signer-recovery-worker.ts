/**
 * A worker thread of SignerRecovery (signer-recovery.ts): answers each job with
 * recoverPersonalSignAddress, the same function the calling thread would run.
 */
import { parentPort } from 'node:worker_threads';
import { recoverPersonalSignAddress } from './eip191.js';
import type { RecoveryAnswer, RecoveryJob } from './signer-recovery.js';

const port = parentPort;
if (!port) throw new Error('signer-recovery-worker.ts runs only as a worker thread');
port.on('message', ({ id, message, signature }: RecoveryJob) => {
  port.postMessage({
    id,
    result: recoverPersonalSignAddress(message, signature),
  } satisfies RecoveryAnswer);
});
