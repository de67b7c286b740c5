/**
 * Security state the workload made and that must still hold after every fault: a session that
 * ended stays ended (its access token refused on REST and on /ws of every pod), a refresh token
 * that was used stays used, a sign-in signature that was accepted is never accepted again, and
 * a block keeps refusing the blocked user's call offers on every pod, and a suspended account
 * stays suspended (suspensions.ts). The checker runs every hold in the list and counts a broken
 * one as revived.
 */
import { callOffer } from '../faults/support/checks.js';
import { connectWs } from '../support/session-ws.js';
import type { SignedIn } from '../support/wallet.js';
import type { TestUser } from '../support/wallet.js';
import type { Recorder } from './recorder.js';
import type { SoakCluster } from './soak-cluster.js';

export interface SecurityHold {
  /** `ended session`, `used refresh token`, `spent signature`, `block`, `suspension`. */
  readonly kind: string;
  /** When it was made (ms since the soak started). */
  readonly at: number;
  /**
   * How many holds of this kind the checker may check (evenly spread over the run), when
   * checking has effects: the service locks the client's IP out after 5 failed sign-ins within
   * 15 minutes (docs/areas/limits.md), and every replay of a spent signature is one.
   */
  readonly checkAtMost?: number;
  /** Undefined while it holds, else what the cluster did instead. */
  stillHolds(cluster: SoakCluster, recorder: Recorder): Promise<string | undefined>;
}

export function endedSession(session: SignedIn, at: number): SecurityHold {
  return {
    kind: 'ended session',
    at,
    stillHolds: (cluster, recorder) => sessionRefused(session, cluster, recorder, 'ended session'),
  };
}

/**
 * A suspended account: the session it had is refused on REST (401: the suspension ended every
 * session of the account) and on /ws of every pod, and a new sign-in with a fresh signature is
 * refused with 403 ACCOUNT_SUSPENDED (a refusal the lockout does not count: the signature was
 * valid).
 */
export function suspension(target: SignedIn, at: number): SecurityHold {
  return {
    kind: 'suspension',
    at,
    async stillHolds(cluster, recorder) {
      const session = await sessionRefused(target, cluster, recorder, 'suspension');
      const signIn = await freshSignIn(target.user, cluster, recorder);
      if (session === undefined && signIn === '403 ACCOUNT_SUSPENDED') return undefined;
      return `${target.user.address}: ${session ?? 'session refused'}; a new sign-in answered ${signIn}`;
    },
  };
}

/** Undefined when the session's access token is refused on REST (401) and on /ws of every pod. */
async function sessionRefused(
  session: SignedIn,
  cluster: SoakCluster,
  recorder: Recorder,
  kind: string,
): Promise<string | undefined> {
  // /ws first: a REST call with the token may write its "ended" mark to shared state again.
  const sockets = await Promise.all(
    cluster.wsPods.map((pod) =>
      connectWs(pod.service.baseUrl, { protocols: ['bearer', session.accessToken] }),
    ),
  );
  const rest = await recorder.call(`check: ${kind}`, cluster.api.baseUrl, {
    path: '/api/v1/auth/sessions',
    session,
  });
  const opened = sockets.filter((outcome) => outcome.opened).length;
  if (rest.outcome !== 401 || opened > 0)
    return `session ${session.sessionId}: REST ${rest.outcome}, opened /ws on ${opened} pods`;
  return undefined;
}

async function freshSignIn(user: TestUser, cluster: SoakCluster, recorder: Recorder) {
  const answer = await recorder.call('check: suspended sign-in', cluster.api.baseUrl, {
    path: '/api/v1/initialize',
    body: await user.initializeBody('sign-in'),
  });
  return `${answer.outcome} ${(answer.body as { code?: string } | undefined)?.code ?? ''}`.trim();
}

export function usedRefreshToken(refreshToken: string, at: number): SecurityHold {
  return {
    kind: 'used refresh token',
    at,
    async stillHolds(cluster, recorder) {
      const answer = await recorder.call('check: used refresh token', cluster.api.baseUrl, {
        path: '/api/v1/auth/refresh',
        body: { refresh_token: refreshToken },
      });
      return answer.outcome === 401 ? undefined : `refresh answered ${answer.outcome}`;
    },
  };
}

export function spentSignature(initializeBody: unknown, at: number): SecurityHold {
  return {
    kind: 'spent signature',
    at,
    checkAtMost: 4,
    async stillHolds(cluster, recorder) {
      const answer = await recorder.call('check: spent signature', cluster.api.baseUrl, {
        path: '/api/v1/initialize',
        body: initializeBody,
      });
      return answer.outcome === 401 ? undefined : `sign-in answered ${answer.outcome}`;
    },
  };
}

export function block(blocker: SignedIn, blocked: SignedIn, at: number): SecurityHold {
  return {
    kind: 'block',
    at,
    async stillHolds(cluster) {
      const offers = await Promise.all(
        cluster.wsPods.map((pod) => callOffer(cluster.api.baseUrl, pod.service, blocked, blocker)),
      );
      return offers.every((code) => code === 'CALL_REFUSED')
        ? undefined
        : `call offers of the blocked user answered ${JSON.stringify(offers)}`;
    },
  };
}
