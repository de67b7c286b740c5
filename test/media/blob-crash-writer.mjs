// A process that streams a blob into a FileBlobStore without end, printing how far it got, to
// be killed with SIGKILL mid-write (blob-store-crash.test.ts).
const [, , modulePath, dataDir, blobId] = process.argv;
const { FileBlobStore } = await import(modulePath);
const blobs = await FileBlobStore.open(dataDir);
let written = 0;
async function* endless() {
  for (;;) {
    const chunk = Buffer.alloc(65_536, 7);
    written += chunk.length;
    if (written % 1_048_576 === 0) process.stdout.write(`${written}\n`);
    yield chunk;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
await blobs.write(blobId, endless(), Number.MAX_SAFE_INTEGER);
