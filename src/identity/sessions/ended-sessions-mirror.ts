/**
 * The ended-session marks are a mirror of the store (revocations.ts): this copies them back
 * from the sessions the store says ended recently enough that an access token of theirs may
 * still be valid. Ended sessions are kept a day (session-manager.ts), far longer than that.
 */
import type { MirrorSource } from '../../platform/shared-state/mirror-keeper.js';
import type { DocumentStore } from '../../platform/store/document-store.js';
import type { Revocations } from './revocations.js';
import { SESSIONS } from './session.js';
import type { Session } from './session.js';

export function endedSessionsMirror(store: DocumentStore, revocations: Revocations): MirrorSource {
  const sessions = store.collection<Session>(SESSIONS);
  return {
    name: 'ended_sessions',
    async restore() {
      const since = new Date(Date.now() - revocations.accessTokenLifetimeMs);
      const ended = await sessions.find(
        { endedAt: { $gt: since } },
        { projection: { _id: 1, endedAt: 1 } },
      );
      await Promise.all(
        ended.map((session) => revocations.restoreEnded(session._id, session.endedAt!)),
      );
      return ended.length;
    },
  };
}
