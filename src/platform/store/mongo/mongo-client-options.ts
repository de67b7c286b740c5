import type { MongoClientOptions } from 'mongodb';

/**
 * The driver's options, stated rather than left to defaults (they take precedence over the
 * same options in MONGODB_URL).
 */
export const MONGO_CLIENT_OPTIONS: MongoClientOptions = {
  // Shown in the server's logs and currentOp, so an operator can tell this service's connections apart.
  appName: 'messaging-service',
  // A write is acknowledged once a majority of the replica set has it in its journal: a
  // failover never rolls back a session revocation, a spent backup code or a sent message
  // that a client was told about.
  writeConcern: { w: 'majority', journal: true },
  // The conditional flows (spend a code once, exchange a refresh token once, idempotent sends)
  // read what they or a concurrent request just wrote: only the primary is sure to have it.
  readPreference: 'primary',
  // Without a reachable primary a request fails after 10 s (the driver's default is 30 s),
  // within the api pods' shutdown and probe budgets.
  serverSelectionTimeoutMS: 10_000,
  retryWrites: true,
};
