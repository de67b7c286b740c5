/**
 * How a protocol step answered: `'accepted'`, or the code of the E2eeError it refused with. Any
 * other exception is a defect and propagates, so a test cannot pass on an unexpected crash.
 */
import { E2eeError } from '../../../src/crypto/e2ee-error.js';
import type { E2eeErrorCode } from '../../../src/crypto/e2ee-error.js';

export function refusal(run: () => unknown): E2eeErrorCode | 'accepted' {
  try {
    run();
  } catch (error) {
    if (error instanceof E2eeError) return error.code;
    throw error;
  }
  return 'accepted';
}
