// `npm run bench`: builds, then runs every benchmark on this machine and prints the figures.
// BENCH_DURATION (seconds per measurement, default 10) shortens or lengthens the runs.
import { benchGateway } from './gateway.mjs';

const duration = Number(process.env.BENCH_DURATION ?? 10);
console.log(`node ${process.version}, ${(await import('node:os')).cpus().length} cores, ${duration}s per measurement`);
await benchGateway({ duration });
