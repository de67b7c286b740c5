/**
 * MONGODB_URL is read as a MongoDB connection string, by the parser the driver itself uses:
 * the WHATWG URL parser refuses the multi-host form every replica set is reached by
 * (`mongodb://h1:27017,h2:27017/db?replicaSet=rs0`). The database must be named in the URL:
 * without one the driver silently writes to `test`.
 */
import { ConnectionString } from 'mongodb-connection-string-url';
import { ConfigError, optionalTextSetting, type Setting } from './setting.js';

export interface MongoConnectionString {
  /** `host:port` of each seed (for `mongodb+srv:`, the SRV name). */
  readonly hosts: string[];
  readonly database: string;
}

/** Throws an Error whose message never repeats the URL (it may hold a password). */
export function parseMongoConnectionString(raw: string): MongoConnectionString {
  let parsed: ConnectionString;
  try {
    parsed = new ConnectionString(raw);
  } catch (err) {
    throw new Error(`is not a MongoDB connection string (${(err as Error).message})`);
  }
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  if (database === '')
    throw new Error(
      'names no database: give it as the path, e.g. mongodb://host1:27017,host2:27017/messaging?replicaSet=rs0',
    );
  return { hosts: parsed.hosts, database };
}

/** The MONGODB_URL setting: unset means the embedded store. */
export function mongoConnectionStringSetting(
  env: string,
  description: string,
): Setting<string | undefined> {
  const text = optionalTextSetting(env, description);
  return {
    ...text,
    parse(raw) {
      const value = text.parse(raw);
      if (value === undefined) return undefined;
      try {
        parseMongoConnectionString(value);
      } catch (err) {
        throw new ConfigError(env, (err as Error).message);
      }
      return value;
    },
  };
}
