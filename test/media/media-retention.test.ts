/**
 * The media area's domain over a real embedded store and real blob files: a reference that
 * ended (a viewed view-once message past its grace, a disappearing message expired) lets the
 * sweeper delete the blob (410 after); one that lasts keeps it; two sweepers racing delete once;
 * avatars (set, replace, public read) and their thumbnails; and the account data owner (move,
 * delete).
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import sharp from 'sharp';
import { AccountRepository } from '../../src/accounts/account-repository.js';
import { createMediaLibrary } from '../../src/media/media-area.js';
import type { MediaLibrary } from '../../src/media/media-area.js';
import { MediaItems } from '../../src/media/media-items.js';
import { createMediaMetrics } from '../../src/media/media-metrics.js';
import { MediaDisposal } from '../../src/media/retention/media-disposal.js';
import { MediaSweeper } from '../../src/media/retention/media-sweeper.js';
import { FileBlobStore } from '../../src/media/storage/file-blob-store.js';
import { Downloads } from '../../src/media/downloads/downloads.js';
import { MediaAccess } from '../../src/media/downloads/media-access.js';
import { thumbnailBlobId } from '../../src/media/media-item.js';
import { checkDescription, Uploads } from '../../src/media/uploads/uploads.js';
import { Conversations } from '../../src/messaging/conversations/conversations.js';
import { EmbeddedDocumentStore } from '../../src/platform/store/embedded/embedded-store.js';
import { createLogger } from '../../src/platform/logging/logger.js';
import { silentLogger } from '../support/silent-logger.js';

const logger = createLogger('silent');

const owner = `0x${'a1'.repeat(20)}`;
const other = `0x${'b2'.repeat(20)}`;
const RETENTION_MS = 60_000;

let dataDir: string;
let store: EmbeddedDocumentStore;
let media: MediaLibrary;
let items: MediaItems;
let uploads: Uploads;
let downloads: Downloads;
let sweeper: MediaSweeper;
let metrics: ReturnType<typeof createMediaMetrics>;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'media-domain-'));
  store = await EmbeddedDocumentStore.open({ dataDir, logger: silentLogger });
  metrics = createMediaMetrics(new Registry());
  const settings = {
    unreferencedRetentionMs: RETENTION_MS,
    sweepIntervalMs: 60_000,
    viewedGraceMs: 300_000,
  };
  const conversations = new Conversations(store, new AccountRepository(store));
  media = await createMediaLibrary({
    settings,
    store,
    blobStorage: { mongodbUrl: undefined, dataDir },
    metrics,
    logger,
  });
  // A second view of the same store and files, as a second api pod has.
  items = new MediaItems(store);
  const blobs = await FileBlobStore.open(dataDir);
  uploads = new Uploads(items, blobs, RETENTION_MS, metrics);
  downloads = new Downloads(
    items,
    blobs,
    new MediaAccess(conversations, { mayRead: async () => false }, { maySee: async () => false }),
    metrics,
  );
  sweeper = new MediaSweeper(items, new MediaDisposal(items, blobs), settings, metrics, logger);
});
afterEach(async () => {
  await media.background.stop();
  await store.close();
  await rm(dataDir, { recursive: true, force: true });
});

const upload = (kind = 'voice', who = owner) =>
  uploads.upload(
    who,
    checkDescription({ kind, contentType: 'application/octet-stream', sha256: '' }),
    [Buffer.from('encrypted bytes')],
  );
const statusOf = (mediaId: string, who = owner) =>
  downloads.downloadable(mediaId, who).then(
    () => 200,
    (error: { code: number; metadata: Headers }) =>
      Number(error.metadata.get('x-http-status') ?? (error.code === 5 ? 404 : 0)),
  );
const reference = (messageId: string, until: Date | null) => ({
  messageId,
  conversationId: `dm:${owner}:${other}`,
  until,
  grantsAccess: true,
});

it('a reference that ended (viewed view-once past its grace) lets the sweeper delete the blob: 410 after', async () => {
  const item = await upload();
  await media.attachments.attach(
    owner,
    item._id,
    'voice',
    reference('m1', new Date(Date.now() + 30 * 86_400_000)),
  );
  await sweeper.sweepOnce();
  expect(await statusOf(item._id)).toBe(200);
  // Opening the view-once message ends the reference when its grace ends; here that is now.
  await media.attachments.endReference(item._id, 'm1', new Date(Date.now() - 1));
  await sweeper.sweepOnce();
  expect(await statusOf(item._id)).toBe(410);
});

it('an item stays while one of its references lasts, and goes when the last one ends', async () => {
  const item = await upload();
  await media.attachments.attach(
    owner,
    item._id,
    'voice',
    reference('m1', new Date(Date.now() + 50)),
  );
  await media.attachments.attach(owner, item._id, 'voice', reference('m2', null));
  // Attaching again for the same message (a retried send) adds nothing.
  await media.attachments.attach(owner, item._id, 'voice', reference('m2', null));
  expect((await items.find(item._id))?.references).toHaveLength(2);
  await new Promise((resolve) => setTimeout(resolve, 100));
  await sweeper.sweepOnce();
  expect(await statusOf(item._id)).toBe(200);
  await media.attachments.endReference(item._id, 'm2', new Date(Date.now() - 1));
  await sweeper.sweepOnce();
  expect(await statusOf(item._id)).toBe(410);
});

it('two sweepers on one store delete each due item once', async () => {
  const due = await Promise.all(Array.from({ length: 20 }, () => upload()));
  await store
    .collection('media')
    .updateMany(
      {},
      { $set: { createdAt: new Date(Date.now() - 2 * RETENTION_MS), releaseCheckAt: new Date(0) } },
    );
  await Promise.all([sweeper.sweepOnce(), media.sweeper.sweepOnce()]);
  for (const item of due) expect(await statusOf(item._id)).toBe(410);
  const deletions = (await metrics.deletions.get()).values.reduce(
    (sum, value) => sum + value.value,
    0,
  );
  expect(deletions).toBe(20);
});

it('avatars: set checks kind and owner, replaces the previous one, and is read without an access check', async () => {
  const voice = await upload('voice');
  await expect(media.avatars.set(owner, voice._id)).rejects.toMatchObject({ code: 3 });
  const png = await (
    await import('sharp')
  )
    .default({ create: { width: 4, height: 4, channels: 3, background: '#000' } })
    .png()
    .toBuffer();
  const first = await uploads.upload(
    owner,
    checkDescription({ kind: 'avatar', contentType: 'image/png', sha256: '' }),
    [png],
  );
  await expect(media.avatars.set(other, first._id)).rejects.toMatchObject({ code: 5 });
  expect(await media.avatars.set(owner, first._id)).toBe(`/api/v1/avatar/${owner}`);
  expect((await media.avatars.current(owner))?._id).toBe(first._id);
  const second = await uploads.upload(
    owner,
    checkDescription({ kind: 'avatar', contentType: 'image/png', sha256: '' }),
    [png],
  );
  await media.avatars.set(owner, second._id);
  expect((await media.avatars.current(owner))?._id).toBe(second._id);
  // The replaced avatar is no longer referenced: after the retention it is swept.
  expect((await items.find(first._id))?.references).toEqual([]);
  expect((await items.find(second._id))?.references).toHaveLength(1);
});

it('account data: a move re-owns uploads and the avatar; a deletion deletes them (410) and the avatar', async () => {
  const png = await (
    await import('sharp')
  )
    .default({ create: { width: 4, height: 4, channels: 3, background: '#fff' } })
    .png()
    .toBuffer();
  const avatar = await uploads.upload(
    owner,
    checkDescription({ kind: 'avatar', contentType: 'image/png', sha256: '' }),
    [png],
  );
  await media.avatars.set(owner, avatar._id);
  const voice = await upload();
  await media.accountData.moveAccount(owner, other);
  await media.accountData.moveAccount(owner, other); // resumable: a second run changes nothing
  expect((await items.find(voice._id))?.ownerAddress).toBe(other);
  expect(await media.avatars.current(owner)).toBeUndefined();
  expect((await media.avatars.current(other))?._id).toBe(avatar._id);
  expect(await statusOf(voice._id, other)).toBe(200);
  expect(await statusOf(voice._id, owner)).toBe(404);

  await media.accountData.deleteAccount(other);
  await media.accountData.deleteAccount(other);
  expect(await statusOf(voice._id, other)).toBe(410);
  expect(await media.avatars.current(other)).toBeUndefined();
});

it('an avatar’s thumbnail is a blob of its own, deleted with the avatar; one cut off before the item was stored goes too', async () => {
  const photo = await sharp({
    create: { width: 400, height: 200, channels: 3, background: '#123456' },
  })
    .png()
    .toBuffer();
  const avatar = await uploads.upload(
    owner,
    checkDescription({ kind: 'avatar', contentType: 'image/png', sha256: '' }),
    [photo],
  );
  const thumbnailFile = join(dataDir, 'media', thumbnailBlobId(avatar._id));
  const thumbnail = await readFile(thumbnailFile);
  expect(avatar.thumbnail).toEqual({
    size: thumbnail.length,
    sha256: createHash('sha256').update(thumbnail).digest('hex'),
    contentType: 'image/webp',
  });
  expect(await sharp(thumbnail).metadata()).toMatchObject({
    format: 'webp',
    width: 128,
    height: 64,
  });
  await store
    .collection('media')
    .updateOne(
      { _id: avatar._id },
      { $set: { releaseCheckAt: new Date(0), createdAt: new Date(Date.now() - 2 * RETENTION_MS) } },
    );
  await sweeper.sweepOnce();
  expect(await statusOf(avatar._id)).toBe(410);
  await expect(readFile(thumbnailFile)).rejects.toMatchObject({ code: 'ENOENT' });
  await expect(readFile(join(dataDir, 'media', avatar._id))).rejects.toMatchObject({
    code: 'ENOENT',
  });

  // A crash after the thumbnail was written leaves an `uploading` item: the sweeper removes both blobs.
  const cutOff = await uploads.upload(
    owner,
    checkDescription({ kind: 'avatar', contentType: 'image/png', sha256: '' }),
    [photo],
  );
  await store.collection('media').updateOne(
    { _id: cutOff._id },
    {
      $set: { state: 'uploading', releaseCheckAt: new Date(0), createdAt: new Date(0) },
      $unset: { thumbnail: '' },
    },
  );
  await sweeper.sweepOnce();
  await expect(readFile(join(dataDir, 'media', thumbnailBlobId(cutOff._id)))).rejects.toMatchObject(
    { code: 'ENOENT' },
  );
});
