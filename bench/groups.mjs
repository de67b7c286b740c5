// Group fan-out next to direct messages, on the service and on a plain `ws` baseline
// (bench/ws-baseline-server.mjs: no storage, the message written to every member's socket) in the
// same run, one server at a time per group size: for each size N of the curve BENCH_GROUP_CURVE
// (comma-separated, default "10,100"; the full curve is "10,100,1000"), N users each with one
// connected device, all members of one group. On each server, after untimed warm-ups:
// - direct messages user i → i+1 (each delivered to the recipient and to the sender's device),
//   1,500 of them, BENCH_GROUP_CONCURRENCY sends in flight (default 16);
// - group messages from the members in turn (each delivered to every member's device, the
//   sender's included), BENCH_GROUP_CONCURRENCY in flight: the offered load of issue #29's row.
//   BENCH_GROUP_MESSAGES per size (default 300), fewer for large groups so that each size makes
//   about 30,000 deliveries (30 messages to 1,000 members);
// - group messages one at a time, each sent only once the previous one reached its last member:
//   the latency of the fan-out itself, queued behind no other send. BENCH_GROUP_ONE_AT_A_TIME
//   sends (default 30).
//
// Figures per round (bench/fan-out.mjs): deliveries per second (socket deliveries over the time
// from the first send to the last delivery), latency p50/p99 over every delivery and per send to
// its last delivery (the measure), and the server's CPU time (user + system, from /proc)
// per delivery. The client runs in this process, each server in its own: the service is
// `node dist/main.js` (role `all`, embedded store, in-process shared state, LOG_LEVEL=warn, rate
// limits off).
import { randomBytes } from 'node:crypto';
import { connectAll, measureRound, openSocket, serviceEndpoints } from './fan-out.mjs';
import { startWithUsers } from './sign-in.mjs';
import {
  inFlight,
  jsonPoster,
  printRatio,
  printTable,
  raiseFileLimit,
  startWsBaselineServer,
} from './support.mjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const CPU = 'server CPU µs per delivery';
const SERVICE = 'service';
const BASELINE = 'plain ws';

/**
 * The service with `members` users, all in one group; how the rounds reach it:
 * `direct(from, to, id, ciphertext)` and `toGroup(from, id, ciphertext)` send as user `from`.
 */
async function startServiceGroup(members) {
  const { service, base, sessions, addresses } = await startWithUsers(
    members,
    `grp${Date.now().toString(36)}`,
  );
  try {
    const post = jsonPoster(base);
    const auth = (user) => ({ authorization: `Bearer ${sessions[user].access_token}` });
    // CreateGroup names at most 256 members; the others join with an invite code.
    const { group } = JSON.parse(
      await post(
        '/api/v1/groups/create',
        { name: 'Bench', member_addresses: addresses.slice(1, 256) },
        auth(0),
      ),
    );
    if (members > 256) {
      const invite = JSON.parse(await post(`/api/v1/groups/${group.id}/invites`, {}, auth(0)));
      await inFlight(members - 256, 16, (i) =>
        post(`/api/v1/groups/join/${invite.invite_code}`, {}, auth(256 + i)),
      );
    }
    return {
      name: SERVICE,
      pid: service.pid,
      ...serviceEndpoints(service, post, sessions, addresses),
      toGroup: (from, id, ciphertext) =>
        post('/api/v1/send', { client_message_id: id, group_id: group.id, ciphertext }, auth(from)),
      stop: () => service.stop(),
    };
  } catch (error) {
    await service.stop();
    throw error;
  }
}

/** The plain `ws` baseline with one group of `members` users, reached as startServiceGroup's. */
async function startBaselineGroup(members) {
  const baseline = await startWsBaselineServer();
  try {
    const post = jsonPoster(baseline.base);
    const users = Array.from({ length: members }, (_, user) => String(user));
    const { group_id } = JSON.parse(await post('/groups', { members: users }));
    return {
      name: BASELINE,
      pid: baseline.pid,
      open: (user) => openSocket(`ws://127.0.0.1:${baseline.port}/ws?user=${user}`),
      direct: (from, to, id, ciphertext) =>
        post('/send', { from: users[from], to: users[to], client_message_id: id, ciphertext }),
      toGroup: (from, id, ciphertext) =>
        post('/send', { from: users[from], group_id, client_message_id: id, ciphertext }),
      stop: baseline.stop,
    };
  } catch (error) {
    await baseline.stop();
    throw error;
  }
}

/** The three rounds on one started server (see the top of this file). */
async function measureRounds(server, { members, messages, concurrency, oneAtATime }) {
  const sockets = await connectAll(members, server.open);
  try {
    await sleep(1000);
    const ciphertext = randomBytes(256).toString('base64');
    const direct = (index, id) =>
      server.direct(index % members, (index + 1) % members, id, ciphertext);
    const toGroup = (index, id) => server.toGroup(index % members, id, ciphertext);
    const round = (label, send, fanOut, count, pace) =>
      measureRound({
        socketsOfUser: sockets.map((socket) => [socket]),
        pid: server.pid,
        label,
        send,
        fanOut,
        count,
        ...pace,
      });
    const queued = { concurrency };
    await round('warmdirect', direct, 2, 200, queued);
    await round('warmgroup', toGroup, members, Math.min(30, messages), queued);
    return {
      direct: await round('direct', direct, 2, 1500, queued),
      group: await round('group', toGroup, members, messages, queued),
      alone: await round('alone', toGroup, members, oneAtATime, {
        concurrency: 1,
        untilDelivered: true,
      }),
    };
  } finally {
    for (const socket of sockets) socket.terminate();
  }
}

const ratio = (service, baseline, field) => service[field] / baseline[field];

const toLast = (row) =>
  `${row['p50 ms to last']} / ${row['p99 ms to last']} ms (${row['deliveries/s']} deliveries/s)`;

/** Both servers at one group size, one after the other; prints their table. */
async function measureSize(members, shape) {
  const servers = {};
  for (const start of [startBaselineGroup, startServiceGroup]) {
    const server = await start(members);
    try {
      servers[server.name] = await measureRounds(server, { members, ...shape });
    } finally {
      await server.stop();
    }
  }
  const rows = {};
  const kinds = {
    direct: 'direct message (2 deliveries each)',
    group: `group message (${members} deliveries each), ${shape.concurrency} in flight`,
    alone: 'group message, one at a time',
  };
  for (const [kind, title] of Object.entries(kinds))
    for (const name of [BASELINE, SERVICE]) rows[`${name}, ${title}`] = servers[name][kind];
  printTable(
    `group fan-out: ${members} members, each connected with one device; the service and plain ws`,
    rows,
  );
  const { [SERVICE]: service, [BASELINE]: baseline } = servers;
  console.log(
    `ratio group / direct (service): deliveries/s ${ratio(service.group, service.direct, 'deliveries/s').toFixed(2)}, p99 ${ratio(service.group, service.direct, 'p99 ms').toFixed(2)}, CPU per delivery ${ratio(service.group, service.direct, CPU).toFixed(2)}`,
  );
  console.log(
    `p50 / p99 send to last delivery, ${members} members: ${shape.concurrency} in flight: service ${toLast(service.group)}, plain ws ${toLast(baseline.group)}; ` +
      `one at a time: service ${toLast(service.alone)}, plain ws ${toLast(baseline.alone)} (issue #29's target: p50 ≤ 100, p99 ≤ 250 ms at ${shape.concurrency} in flight)`,
  );
  return servers;
}

export async function benchGroups({
  curve = (process.env.BENCH_GROUP_CURVE ?? '10,100').split(',').map(Number),
  messages = Number(process.env.BENCH_GROUP_MESSAGES ?? 300),
  concurrency = Number(process.env.BENCH_GROUP_CONCURRENCY ?? 16),
  oneAtATime = Number(process.env.BENCH_GROUP_ONE_AT_A_TIME ?? 30),
} = {}) {
  raiseFileLimit(process.pid);
  const points = {};
  for (const members of curve)
    points[members] = await measureSize(members, {
      messages: Math.min(messages, Math.ceil(30_000 / members)),
      concurrency,
      oneAtATime,
    });
  if (curve.length > 1) {
    printTable(
      'group fan-out curve',
      Object.fromEntries(
        curve.map((members) => [
          `${members} members`,
          {
            'deliveries/s': points[members][SERVICE].group['deliveries/s'],
            [CPU]: points[members][SERVICE].group[CPU],
            'direct, same service': points[members][SERVICE].direct[CPU],
            'plain ws deliveries/s': points[members][BASELINE].group['deliveries/s'],
            [`plain ws ${CPU}`]: points[members][BASELINE].group[CPU],
          },
        ]),
      ),
    );
  }
  const [smallest, largest] = [curve[0], curve[curve.length - 1]];
  const { [SERVICE]: service, [BASELINE]: baseline } = points[largest];
  const group = `group of ${largest} members`;
  printRatio(
    `${group}, p50 send to last delivery (ms)`,
    service.group['p50 ms to last'],
    '<=',
    100,
  );
  printRatio(
    `${group}, p99 send to last delivery (ms)`,
    service.group['p99 ms to last'],
    '<=',
    250,
  );
  printRatio(
    `group CPU per delivery, ${largest} / ${smallest} members`,
    service.group[CPU] / points[smallest][SERVICE].group[CPU],
    '<=',
    1.25,
  );
  // Against plain ws, the /ws fan-out row's targets (CPU per delivery ≤ 2×, deliveries/s ≥ 0.7×):
  // at the same offered load, latency goes as 1 / throughput (Little's law), so ≥ 0.7× the
  // deliveries/s reads as ≤ 1 / 0.7 = 1.43× the latency.
  printRatio(
    `${group}, CPU per delivery, service / plain ws`,
    ratio(service.group, baseline.group, CPU),
    '<=',
    2,
  );
  printRatio(
    `${group}, p50 send to last delivery, service / plain ws, ${concurrency} in flight`,
    ratio(service.group, baseline.group, 'p50 ms to last'),
    '<=',
    1.43,
  );
  printRatio(
    `${group}, p50 send to last delivery, service / plain ws, one at a time`,
    ratio(service.alone, baseline.alone, 'p50 ms to last'),
    '<=',
    1.43,
  );
  return points;
}
