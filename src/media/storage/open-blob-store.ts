/** Picks the blob store that goes with the document store: GridFS with MongoDB, files otherwise. */
import type { BlobStore } from './blob-store.js';
import { FileBlobStore } from './file-blob-store.js';
import { GridFsBlobStore } from './gridfs-blob-store.js';

export function openBlobStore(where: {
  readonly mongodbUrl: string | undefined;
  readonly dataDir: string;
}): Promise<BlobStore> {
  return where.mongodbUrl
    ? GridFsBlobStore.connect(where.mongodbUrl)
    : FileBlobStore.open(where.dataDir);
}
