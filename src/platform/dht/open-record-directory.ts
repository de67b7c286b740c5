/** Opens the record directory that the settings choose (KEYS_DHT): the DHT node, or local records. */
import type { KeysSettings } from '../config/settings.js';
import type { Logger } from '../logging/logger.js';
import { KademliaDirectory } from './kademlia-directory.js';
import { LocalRecordDirectory } from './local-directory.js';
import type { RecordDirectory, RecordRules } from './record-directory.js';

export interface RecordDirectoryOptions {
  readonly settings: KeysSettings;
  /** HOST: the DHT node listens on the service's interface. */
  readonly host: string;
  readonly namespace: string;
  readonly rules: RecordRules;
  readonly logger: Logger;
}

export async function openRecordDirectory({
  settings,
  host,
  namespace,
  rules,
  logger,
}: RecordDirectoryOptions): Promise<RecordDirectory> {
  if (settings.dht === 'off') return new LocalRecordDirectory(rules);
  return KademliaDirectory.start({
    host,
    port: settings.dhtPort,
    peers: settings.dhtPeers,
    namespace,
    rules,
    timeoutMs: settings.dhtTimeoutMs,
    logger,
  });
}
