/**
 * An operator holding `admin:review_reports`, made as operators make one: the account signs
 * up, the service stops, `npm run admin -- grant` runs on its data, and the service starts again
 * on it (`prepareDataDir` of service-for-tests.ts).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { builtModule } from '../../support/built-service.js';
import { startTestService } from '../../support/start-service.js';
import { TestUser, signIn } from '../../support/wallet.js';

export const REVIEW_PERMISSION = 'admin:review_reports';

/** Grants the permission with the operator command on a stopped service's DATA_DIR. */
export async function grantOnData(dataDir: string, address: string): Promise<void> {
  await promisify(execFile)(
    process.execPath,
    [builtModule('cli/admin.js'), 'grant', address, REVIEW_PERMISSION],
    { env: { ...process.env, DATA_DIR: dataDir } },
  );
}

/** A DATA_DIR in which `reviewer` holds the permission (its first session is kept in the data). */
export async function dataWithReviewer(
  env: Record<string, string>,
  reviewer: TestUser,
): Promise<string> {
  const first = await startTestService(env, { keepData: true });
  await signIn(first.baseUrl, reviewer);
  await first.stop();
  await grantOnData(first.dataDir, reviewer.address);
  return first.dataDir;
}
