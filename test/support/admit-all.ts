/**
 * A send admission for tests that build messaging or channels parts directly: every sender is
 * admitted (no suspension, no spam limit) and franking is not expected (a franked send would be
 * a test bug). The moderation area's own admission is tested end to end in test/moderation.
 */
import type { SendAdmission } from '../../src/messaging/messages/send-admission.js';

export const ADMIT_ALL: SendAdmission = {
  admit: () => Promise.resolve(),
  frank: () => {
    throw new Error('no franked messages in this test');
  },
};
