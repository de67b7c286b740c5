// Group fan-out next to direct messages, on one service per group size: for each size N of the
// curve BENCH_GROUP_CURVE (comma-separated, default "10,100"; the full curve is "10,100,1000"),
// N users each with one connected device, all members of one group. First direct messages user
// i → i+1 (each delivered to the recipient and to the sender's device), then group messages from
// the members in turn (each delivered to every member's device, the sender's included), both over
// HTTP with BENCH_GROUP_CONCURRENCY sends in flight (default 16). Group messages per size:
// BENCH_GROUP_MESSAGES (default 300), fewer for large groups so that each size makes about
// 30,000 deliveries (30 messages to 1,000 members); direct messages: 1,500.
//
// Figures per kind: deliveries per second (socket deliveries over the time from the first send
// to the last delivery), send-to-receive latency p50/p99 over every delivery, and the server's
// CPU time (user + system, from /proc) per delivery. The client runs in this process, the
// service (`node dist/main.js`, role `all`, embedded store, in-process shared state,
// LOG_LEVEL=warn, rate limits off) in its own.
import { randomBytes } from 'node:crypto';
import { connectAll, measureRound, openSocket } from './fan-out.mjs';
import { startWithUsers } from './sign-in.mjs';
import { inFlight, jsonPoster, printRatio, printTable, raiseFileLimit } from './support.mjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const CPU = 'server CPU µs per delivery';

async function measureGroup(members, messages, concurrency) {
  const { service, base, sessions, addresses } = await startWithUsers(
    members,
    `grp${Date.now().toString(36)}`,
  );
  try {
    const post = jsonPoster(base);
    const auth = (user) => ({ authorization: `Bearer ${sessions[user].access_token}` });
    // CreateGroup names at most 256 members; the others join with an invite code.
    const group = JSON.parse(
      await post(
        '/api/v1/groups/create',
        { name: 'Bench', member_addresses: addresses.slice(1, 256) },
        auth(0),
      ),
    );
    if (members > 256) {
      const invite = JSON.parse(
        await post(`/api/v1/groups/${group.group.id}/invites`, {}, auth(0)),
      );
      await inFlight(members - 256, 16, (i) =>
        post(`/api/v1/groups/join/${invite.invite_code}`, {}, auth(256 + i)),
      );
    }
    const sockets = await connectAll(members, (user) =>
      openSocket(`ws://127.0.0.1:${service.httpPort}/ws`, ['bearer', sessions[user].access_token]),
    );
    await sleep(1000);
    const socketsOfUser = sockets.map((socket) => [socket]);
    const ciphertext = randomBytes(256).toString('base64');
    const direct = (index, id) => {
      const from = index % members;
      return post(
        '/api/v1/send',
        { client_message_id: id, recipient_address: addresses[(from + 1) % members], ciphertext },
        auth(from),
      );
    };
    const toGroup = (index, id) =>
      post(
        '/api/v1/send',
        { client_message_id: id, group_id: group.group.id, ciphertext },
        auth(index % members),
      );
    const common = { socketsOfUser, pid: service.pid, concurrency };
    await measureRound({ ...common, send: direct, count: 200, fanOut: 2, label: 'warmdirect' });
    await measureRound({
      ...common,
      send: toGroup,
      count: Math.min(30, messages),
      fanOut: members,
      label: 'warmgroup',
    });
    const directRow = await measureRound({
      ...common,
      send: direct,
      count: 1500,
      fanOut: 2,
      label: 'direct',
    });
    const groupRow = await measureRound({
      ...common,
      send: toGroup,
      count: messages,
      fanOut: members,
      label: 'group',
    });
    for (const socket of sockets) socket.terminate();
    printTable(
      `group fan-out: ${members} members, each connected with one device, ${concurrency} sends in flight`,
      {
        'direct message (2 deliveries each)': directRow,
        [`group message (${members} deliveries each)`]: groupRow,
      },
    );
    console.log(
      `ratio group / direct: deliveries/s ${(groupRow['deliveries/s'] / directRow['deliveries/s']).toFixed(2)}, p99 ${(groupRow['p99 ms'] / directRow['p99 ms']).toFixed(2)}, CPU per delivery ${(groupRow[CPU] / directRow[CPU]).toFixed(2)}`,
    );
    return { direct: directRow, group: groupRow };
  } finally {
    await service.stop();
  }
}

export async function benchGroups({
  curve = (process.env.BENCH_GROUP_CURVE ?? '10,100').split(',').map(Number),
  messages = Number(process.env.BENCH_GROUP_MESSAGES ?? 300),
  concurrency = Number(process.env.BENCH_GROUP_CONCURRENCY ?? 16),
} = {}) {
  raiseFileLimit(process.pid);
  const points = {};
  for (const members of curve)
    points[members] = await measureGroup(
      members,
      Math.min(messages, Math.ceil(30_000 / members)),
      concurrency,
    );
  if (curve.length > 1) {
    printTable(
      'group fan-out curve',
      Object.fromEntries(
        curve.map((members) => [
          `${members} members`,
          {
            'deliveries/s': points[members].group['deliveries/s'],
            [CPU]: points[members].group[CPU],
            'direct, same service': points[members].direct[CPU],
          },
        ]),
      ),
    );
  }
  const [smallest, largest] = [curve[0], curve[curve.length - 1]];
  const group = points[largest].group;
  printRatio(`group of ${largest} members, p50 send to delivery (ms)`, group['p50 ms'], '<=', 100);
  printRatio(`group of ${largest} members, p99 send to delivery (ms)`, group['p99 ms'], '<=', 250);
  printRatio(
    `group CPU per delivery, ${largest} / ${smallest} members`,
    group[CPU] / points[smallest].group[CPU],
    '<=',
    1.25,
  );
  return points;
}
