/**
 * Child process of store-crash.test.ts: writes to the embedded store as fast as it can and
 * prints a line for every write only after its promise resolved (i.e. it is acknowledged).
 * Usage: node crash-writer.mjs <compiled open-store.js> <dataDir> <inFlight> <run> [compactionBytes]
 *   "i <id>"          an insert was acknowledged
 *   "u <worker> <k>"  the worker's counter document was acknowledged with last = k
 *   "c"               a compaction finished (its snapshot renamed into place)
 * The parent kills it with SIGKILL at an arbitrary moment.
 */
import { pathToFileURL } from 'node:url';

const [modulePath, dataDir, inFlight, run, compactionBytes] = process.argv.slice(2);
const { openStore } = await import(pathToFileURL(modulePath).href);
const logger = {
  info(_fields, message) {
    if (message === 'store compacted') process.stdout.write('c\n');
  },
  warn() {},
  error() {},
};
const store = await openStore({
  dataDir,
  logger,
  compactionThresholdBytes: compactionBytes ? Number(compactionBytes) : undefined,
});
const docs = store.collection('docs');
const counters = store.collection('counters');
const payload = 'p'.repeat(100);

async function worker(w) {
  for (let k = 0; ; k += 1) {
    const id = await docs.insertOne({
      _id: `${run}-w${w}-${k}`,
      run,
      w,
      k,
      payload,
      at: new Date(),
    });
    process.stdout.write(`i ${id}\n`);
    await counters.updateOne({ _id: `c${w}` }, { $set: { last: k } }, { upsert: true });
    process.stdout.write(`u ${w} ${k}\n`);
  }
}

await Promise.all(Array.from({ length: Number(inFlight) }, (_, w) => worker(w)));
