/**
 * The media area's Prometheus metrics: the sweeper's deletions by why the item went, and the
 * bytes uploaded and downloaded, so an operator sees retention working and media traffic.
 */
import { Counter } from 'prom-client';
import type { Registry } from 'prom-client';

export type DeletionReason =
  'unreferenced' | 'references_ended' | 'abandoned_upload' | 'account_deleted' | 'deletion_resumed';

export interface MediaMetrics {
  readonly deletions: Counter<'reason'>;
  readonly sweepFailures: Counter;
  readonly bytes: Counter<'direction'>;
}

export function createMediaMetrics(registry: Registry): MediaMetrics {
  const registers = [registry];
  return {
    deletions: new Counter({
      name: 'media_items_deleted_total',
      help: 'Media blobs deleted, by reason: unreferenced (retention after upload), references_ended (last message, avatar or story ended), abandoned_upload, account_deleted, deletion_resumed (a deletion cut off earlier).',
      labelNames: ['reason'],
      registers,
    }),
    sweepFailures: new Counter({
      name: 'media_sweep_failures_total',
      help: 'Media sweeps that failed (the next one tries again).',
      registers,
    }),
    bytes: new Counter({
      name: 'media_bytes_total',
      help: 'Media bytes stored by uploads (direction=upload) and sent by downloads (direction=download).',
      labelNames: ['direction'],
      registers,
    }),
  };
}
