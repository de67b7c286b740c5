// `npm run bench`: builds, then runs every benchmark on this machine and prints the figures.
// BENCH_DURATION (seconds per HTTP measurement, default 10) shortens or lengthens the runs;
// BENCH_SIGNIN_COUNT, BENCH_SIGNIN_CONCURRENCY and BENCH_SIGNIN_WORKERS size the sign-in benchmark (bench/sign-in.mjs);
// BENCH_WS_CURVE, BENCH_WS_DEVICES, BENCH_WS_MESSAGES, BENCH_WS_CONCURRENCY, BENCH_WS_RATE and
// BENCH_WS_RATE_SECONDS the realtime one (bench/realtime.mjs; BENCH_WS_SERVERS=service or baseline measures one side); BENCH_CHANNEL_CURVE and
// BENCH_CHANNEL_POSTS the channel fan-out (bench/channels.mjs); BENCH_SEND_MESSAGES and BENCH_SEND_CONCURRENCY the send one (bench/send.mjs);
// BENCH_WALLETS_COUNT and BENCH_WALLETS_CONTRACT_COUNT the contract-wallet one (bench/wallets.mjs);
// BENCH_KEYS_OWNERS and BENCH_KEYS_CONCURRENCY the key-bundle one (bench/keys.mjs);
// BENCH_GROUP_CURVE, BENCH_GROUP_MESSAGES, BENCH_GROUP_CONCURRENCY and BENCH_GROUP_ONE_AT_A_TIME the group one (bench/groups.mjs);
// BENCH_PUSH_USERS, BENCH_PUSH_DEVICES and BENCH_PUSH_CONCURRENCY the push one (bench/push.mjs); BENCH_MEDIA_COUNT the
// media one (bench/media.mjs); BENCH_REDIS_SENDS and BENCH_REDIS_GROUP_MEMBERS the Redis command count
// (bench/redis-commands.mjs); BENCH_REACTION_USERS the channel reaction counts (bench/reactions.mjs).
// The fan-out benchmarks run a short curve by default; the full one (minutes on 2 cores):
// BENCH_WS_CURVE=1000,5000,20000 BENCH_GROUP_CURVE=10,100,1000 BENCH_CHANNEL_CURVE=1000,10000,50000.
// BENCH_PROFILE=<dir> makes each started service write a V8 CPU profile there.
// BENCH_ONLY=<names> (comma-separated, e.g. tail,realtime,groups,keys,push,media: the rows of issue
// #29) runs only those benches, in the order below.
// BENCH_TRACING_CLIENTS sizes the fan-out part of the tracing one (bench/tracing.mjs; also runs alone).
import { cpus } from 'node:os';
import { benchChannels } from './channels.mjs';
import { benchGateway } from './gateway.mjs';
import { benchGroups } from './groups.mjs';
import { benchKeys } from './keys.mjs';
import { benchLimiter } from './limiter.mjs';
import { benchMedia } from './media.mjs';
import { benchPush } from './push.mjs';
import { benchReactions } from './reactions.mjs';
import { benchRealtime } from './realtime.mjs';
import { benchRedisCommands } from './redis-commands.mjs';
import { benchSend } from './send.mjs';
import { benchSignIn } from './sign-in.mjs';
import { benchStore } from './store.mjs';
import { printedRatios } from './support.mjs';
import { benchTail } from './tail.mjs';
import { benchTracing } from './tracing.mjs';
import { benchWallets } from './wallets.mjs';

const duration = Number(process.env.BENCH_DURATION ?? 10);
/** Every bench by the name BENCH_ONLY selects it with, in the order they run. */
const benches = [
  ['gateway', () => benchGateway({ duration })],
  ['store', () => benchStore()],
  ['sign-in', () => benchSignIn()],
  ['wallets', () => benchWallets()],
  ['limiter', () => benchLimiter()],
  ['send', () => benchSend()],
  ['tail', () => benchTail()],
  ['realtime', async () => (directMessages = await benchRealtime())],
  ['channels', () => benchChannels(directMessages)],
  ['groups', () => benchGroups()],
  ['redis-commands', () => benchRedisCommands()],
  ['keys', () => benchKeys()],
  ['push', () => benchPush()],
  ['media', () => benchMedia()],
  ['tracing', () => benchTracing({ duration })],
  ['reactions', () => benchReactions({ duration })],
];
/** The channel bench compares its cost per delivery with the direct messages' when both ran. */
let directMessages;
const only = process.env.BENCH_ONLY?.split(',').map((name) => name.trim());
const unknown = only?.filter((name) => !benches.some(([known]) => known === name)) ?? [];
if (unknown.length > 0) {
  console.error(
    `BENCH_ONLY: no bench named ${unknown.join(', ')}; the names: ${benches.map(([name]) => name).join(', ')}`,
  );
  process.exit(2);
}
console.log(`node ${process.version}, ${cpus().length} cores, ${duration}s per HTTP measurement`);
for (const [name, run] of benches) if (!only || only.includes(name)) await run();

// The targets of issue #29 in one place, as docs/benchmarks.md's opening table lists them.
console.log(`\n## Ratios (targets of issue #29)\n${printedRatios().join('\n')}`);
