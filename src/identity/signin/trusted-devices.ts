/**
 * Trusted devices: a device that passed the MFA step with `trust_device` gets a token that
 * skips the step at its later sign-ins until the trust expires (MFA_TRUSTED_DEVICE_TTL) or the
 * user removes it. The token is `<device id>.<secret>`; only the secret's hash is stored.
 */
import { invalidArgument, notFound } from '../../platform/errors/api-error.js';
import type { Collection, DocumentStore, IndexSpec } from '../../platform/store/document-store.js';
import { newId } from '../../platform/store/new-id.js';
import { hashSecret, matchesHash, newSecret } from '../../platform/secrets/session-secrets.js';

export interface TrustedDeviceRecord {
  _id: string;
  address: string;
  name: string;
  secretHash: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  /** The TTL index removes the record at this time. */
  expiresAt: Date;
  /** For the list order (most recently used first): lastUsedAt, else createdAt. */
  activeAt: Date;
}

const TRUSTED_DEVICES = 'mfa_trusted_devices';
const MAX_TOKEN_LENGTH = 128;
const MAX_PAGE_SIZE = 200;
const DEFAULT_PAGE_SIZE = 50;

export const trustedDeviceIndexes: IndexSpec[] = [
  { collection: TRUSTED_DEVICES, name: 'by_address', key: { address: 1, activeAt: -1 } },
  { collection: TRUSTED_DEVICES, name: 'expiry', key: { expiresAt: 1 }, expireAfterSeconds: 0 },
];

export class TrustedDevices {
  private readonly devices: Collection<TrustedDeviceRecord>;

  constructor(
    store: DocumentStore,
    /** How long trust lasts; 0: devices are never trusted. */
    readonly ttlMs: number,
  ) {
    this.devices = store.collection<TrustedDeviceRecord>(TRUSTED_DEVICES);
  }

  async trust(
    address: string,
    name: string,
  ): Promise<{ deviceId: string; token: string; expiresAt: Date }> {
    const now = new Date();
    const secret = newSecret();
    const record: TrustedDeviceRecord = {
      _id: newId(),
      address,
      name,
      secretHash: hashSecret(secret),
      createdAt: now,
      lastUsedAt: null,
      expiresAt: new Date(now.getTime() + this.ttlMs),
      activeAt: now,
    };
    await this.devices.insertOne(record);
    return { deviceId: record._id, token: `${record._id}.${secret}`, expiresAt: record.expiresAt };
  }

  /** Whether `token` is a live trusted-device token of `address`; a match counts as a use. */
  async vouchesFor(address: string, token: string): Promise<boolean> {
    if (token === '') return false;
    if (token.length > MAX_TOKEN_LENGTH) throw invalidArgument('trusted_device_token is malformed');
    const [deviceId, secret] = token.split('.');
    if (deviceId === undefined || secret === undefined) return false;
    const device = await this.devices.findOne({ _id: deviceId, address });
    if (
      !device ||
      device.expiresAt.getTime() <= Date.now() ||
      !matchesHash(secret, device.secretHash)
    )
      return false;
    const now = new Date();
    await this.devices.updateOne({ _id: deviceId }, { $set: { lastUsedAt: now, activeAt: now } });
    return true;
  }

  /** A page of live devices, most recently used first; the cursor is the offset. */
  async list(
    address: string,
    pageSize: number,
    cursor: string,
  ): Promise<{ devices: TrustedDeviceRecord[]; nextCursor: string }> {
    if (pageSize < 0 || pageSize > MAX_PAGE_SIZE)
      throw invalidArgument(`page_size must be between 1 and ${MAX_PAGE_SIZE}`);
    if (cursor !== '' && !/^\d{1,6}$/.test(cursor)) throw invalidArgument('cursor is malformed');
    const limit = pageSize || DEFAULT_PAGE_SIZE;
    const skip = cursor === '' ? 0 : Number(cursor);
    const page = await this.devices.find(
      { address, expiresAt: { $gt: new Date() } },
      { sort: { activeAt: -1, _id: -1 }, skip, limit: limit + 1 },
    );
    return {
      devices: page.slice(0, limit),
      nextCursor: page.length > limit ? String(skip + limit) : '',
    };
  }

  count(address: string): Promise<number> {
    return this.devices.countDocuments({ address, expiresAt: { $gt: new Date() } });
  }

  async remove(address: string, deviceId: string): Promise<void> {
    const { deletedCount } = await this.devices.deleteOne({ _id: deviceId, address });
    if (deletedCount === 0) throw notFound('No such trusted device');
  }

  async removeAll(address: string): Promise<void> {
    await this.devices.deleteMany({ address });
  }
}
