/**
 * An operator's actions on an account (moderation.proto, ModerateAccount), each written to the
 * audit log that the admin routes use, with the operator as the entry's address and the target
 * in its detail. A suspension is written to the account record first (every later sign-in and
 * send is refused from then on), then every session of the account is ended, which refuses its
 * tokens and closes its sockets on every pod at once (identity's SessionManager).
 */
import type { Suspensions } from '../accounts/suspensions.js';
import type { AuditLog } from '../identity/audit/audit-log.js';
import type { SessionManager } from '../identity/sessions/session-manager.js';
import { notFound } from '../platform/errors/api-error.js';
import type { CallInfo } from '../platform/rpc/call-context.js';

export const MODERATION_ACTIONS = ['warn', 'suspend', 'unsuspend'] as const;
export type ModerationAction = (typeof MODERATION_ACTIONS)[number];

export interface ModerationOrder {
  readonly operator: string;
  readonly address: string;
  readonly action: ModerationAction;
  /** For `suspend`. */
  readonly durationMs: number;
  /** The report that led to it; empty when none. */
  readonly reportId: string;
}

export interface ModerationOutcome {
  readonly suspendedUntil: Date | undefined;
  readonly sessionsEnded: number;
}

const AUDIT_EVENTS = {
  warn: 'account_warned',
  suspend: 'account_suspended',
  unsuspend: 'account_unsuspended',
} as const;

export class AccountModeration {
  constructor(
    private readonly suspensions: Suspensions,
    private readonly sessions: SessionManager,
    private readonly audit: AuditLog,
    private readonly accountExists: (address: string) => Promise<boolean>,
  ) {}

  async apply(
    call: Pick<CallInfo, 'clientIp' | 'requestId'>,
    order: ModerationOrder,
  ): Promise<ModerationOutcome> {
    const outcome = await this.take(order);
    const detail = [
      `target:${order.address}`,
      ...(outcome.suspendedUntil ? [`until:${outcome.suspendedUntil.toISOString()}`] : []),
      ...(order.action === 'suspend' ? [`sessions_ended:${outcome.sessionsEnded}`] : []),
      ...(order.reportId ? [`report:${order.reportId}`] : []),
    ].join(';');
    await this.audit.record(call, AUDIT_EVENTS[order.action], { address: order.operator, detail });
    return outcome;
  }

  private async take(order: ModerationOrder): Promise<ModerationOutcome> {
    const { address } = order;
    switch (order.action) {
      case 'warn':
        if (!(await this.accountExists(address))) throw notFound('No such account');
        return { suspendedUntil: undefined, sessionsEnded: 0 };
      case 'suspend': {
        const until = new Date(Date.now() + order.durationMs);
        if (!(await this.suspensions.suspend(address, until))) throw notFound('No such account');
        const sessionsEnded = await this.sessions.endAll(address, 'suspended');
        return { suspendedUntil: until, sessionsEnded };
      }
      case 'unsuspend':
        if (!(await this.suspensions.lift(address))) throw notFound('No such account');
        return { suspendedUntil: undefined, sessionsEnded: 0 };
    }
  }
}
