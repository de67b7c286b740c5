/**
 * Operator command: `npm run admin -- grant|revoke <wallet address> <permission>`, e.g.
 * `npm run admin -- grant 0xabc… admin:view_audit_logs`. It opens the store the service is
 * configured with (MONGODB_URL, or DATA_DIR: the embedded store admits one process at a time,
 * so stop the service first) and writes the change to the audit trail.
 */
import { randomUUID } from 'node:crypto';
import { AccountRepository } from '../accounts/account-repository.js';
import { AuditLog } from '../identity/audit/audit-log.js';
import { isWalletAddress } from '../accounts/wallet-address.js';
import { loadConfig } from '../platform/config/load-config.js';
import { createLogger } from '../platform/logging/logger.js';
import { openStore } from '../platform/store/open-store.js';

const PERMISSION = /^[a-z_]+:[a-z_]+$/;
const USAGE = 'usage: npm run admin -- grant|revoke <wallet address> <permission>';

async function main(args: string[]): Promise<number> {
  const [command, address, permission] = args;
  if ((command !== 'grant' && command !== 'revoke') || !address || !permission || args.length !== 3)
    return fail(USAGE);
  if (!isWalletAddress(address)) return fail(`not a wallet address: ${address}`);
  if (!PERMISSION.test(permission)) return fail(`not a permission (area:action): ${permission}`);
  const config = loadConfig();
  const store = await openStore({
    mongodbUrl: config.store.mongodbUrl,
    mongodbAllowStandalone: config.store.mongodbAllowStandalone,
    dataDir: config.store.dataDir,
    logger: createLogger('warn'),
  });
  try {
    const changed = await new AccountRepository(store).setPermission(
      address.toLowerCase(),
      permission,
      command === 'grant',
    );
    if (changed === undefined) return fail(`no account with the address ${address}`);
    await new AuditLog(store).record(
      { clientIp: 'local-cli', requestId: randomUUID() },
      command === 'grant' ? 'permission_granted' : 'permission_revoked',
      {
        address: address.toLowerCase(),
        detail: permission,
      },
    );
    process.stdout.write(
      `${command === 'grant' ? 'granted' : 'revoked'} ${permission} ${command === 'grant' ? 'to' : 'from'} ${address.toLowerCase()}${changed ? '' : ' (no change)'}\n`,
    );
    return 0;
  } finally {
    await store.close();
  }
}

function fail(message: string): number {
  process.stderr.write(`${message}\n`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  },
);
