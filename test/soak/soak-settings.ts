/**
 * The soak's settings, from the environment of `npm run soak` (docs/reliability.md):
 * `SOAK_SECONDS` of load (default 120), `SOAK_SEED` for the fault schedule and the workload's
 * choices (default: drawn, and printed so the run can be repeated), `REDIS_CLUSTER=true` for a
 * private three-master Redis Cluster instead of one Redis, `MONGODB_URL` for two api processes
 * on one MongoDB database (without it the api process owns the embedded store, which one
 * process only may hold), `SOAK_REPORT` for where the JSON report goes.
 */
export interface SoakSettings {
  readonly seconds: number;
  readonly seed: number;
  readonly redisCluster: boolean;
  readonly mongodbUrl: string | undefined;
  readonly reportPath: string;
}

export function soakSettings(env: NodeJS.ProcessEnv = process.env): SoakSettings {
  const seconds = Number(env.SOAK_SECONDS ?? 120);
  if (!Number.isFinite(seconds) || seconds < 30)
    throw new Error(`SOAK_SECONDS must be a number of at least 30, not ${env.SOAK_SECONDS}`);
  const seed = env.SOAK_SEED ? Number(env.SOAK_SEED) : Math.floor(Math.random() * 2 ** 31);
  if (!Number.isInteger(seed))
    throw new Error(`SOAK_SEED must be an integer, not ${env.SOAK_SEED}`);
  return {
    seconds,
    seed,
    redisCluster: env.REDIS_CLUSTER === 'true',
    mongodbUrl: env.MONGODB_URL || undefined,
    reportPath: env.SOAK_REPORT ?? `soak-report-${seed}.json`,
  };
}
