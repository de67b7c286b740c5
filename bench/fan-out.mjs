// The client side of the fan-out benchmarks (bench/realtime.mjs, bench/groups.mjs,
// bench/channels.mjs): many WebSocket clients in this one process, kept cheap so that the server,
// not the client, is what is measured.
//
// - Sockets use `ws` without compression and without UTF-8 validation of incoming frames.
// - A delivered frame is never parsed: the message it carries is recognised by searching its
//   bytes for `"client_message_id":"<label>-` and reading the number after it (Buffer.indexOf is
//   native), which is the index of the send, so its send time is an array lookup.
// - Sends go over node:http with kept-alive connections (support.mjs jsonPoster), not fetch.
// - The client's own CPU time over each measurement is reported (`client CPU %` of one core),
//   so a client-bound row shows itself.
import WebSocket from 'ws';
import { processCpuSeconds, inFlight, percentile } from './support.mjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const CLIENT_OPTIONS = { perMessageDeflate: false, skipUTF8Validation: true };

/** A benchmark client socket. */
export function openSocket(url, protocols) {
  return new WebSocket(url, protocols, CLIENT_OPTIONS);
}

/** Opens every socket (at most 200 handshakes at a time) and resolves when each got its greeting. */
/**
 * How a bench client reaches a started service (`startWithUsers`): user i's socket (the
 * `bearer` subprotocol) and a direct message from one user to another over `post`.
 */
export function serviceEndpoints(service, post, sessions, addresses) {
  return {
    open: (user) =>
      openSocket(`ws://127.0.0.1:${service.httpPort}/ws`, ['bearer', sessions[user].access_token]),
    direct: (from, to, id, ciphertext) =>
      post(
        '/api/v1/send',
        { client_message_id: id, recipient_address: addresses[to], ciphertext },
        { authorization: `Bearer ${sessions[from].access_token}` },
      ),
  };
}

export async function connectAll(count, open) {
  const sockets = new Array(count);
  await inFlight(count, 200, async (index) => {
    sockets[index] = await new Promise((resolve, reject) => {
      const socket = open(index);
      socket.once('message', () => resolve(socket));
      socket.once('error', reject);
    });
  });
  return sockets;
}

/** The number after `marker` in `frame` (a Buffer), or -1 when the marker is absent. */
export function numberAfter(frame, marker) {
  const at = frame.indexOf(marker);
  if (at < 0) return -1;
  let value = 0;
  for (let i = at + marker.length; i < frame.length; i++) {
    const digit = frame[i] - 48;
    if (digit < 0 || digit > 9) break;
    value = value * 10 + digit;
  }
  return value;
}

/**
 * Sends `count` bench messages and waits until each is delivered `fanOut` times.
 *
 * - `socketsOfUser[u]`: the sockets of user u (their 'message' listeners are replaced);
 * - `send(index, clientMessageId)`: performs send number `index`;
 * - `timed(user, index)`: whether a delivery of message `index` to user `user` counts in the
 *   latency figures (bench/realtime.mjs times the recipient's devices only);
 * - `concurrency`: sends in flight (closed loop, as fast as the server answers), or `rate`: sends
 *   per second started on schedule whatever the answers (a fixed offered load);
 * - `untilDelivered`: a send stays in flight until its last delivery, not only until the server
 *   answers it (with `concurrency` 1: the latency of one fan-out, queued behind no other send);
 * - `pid`: the server process, whose CPU time per delivery is reported.
 *
 * Latency is reported twice: over every timed delivery (`p50 ms`, `p99 ms`), and per send from
 * the send to the last of its `fanOut` deliveries (`p50 ms to last`, `p99 ms to last`): a group
 * message has reached its group only when its last member has it.
 */
export async function measureRound({
  socketsOfUser,
  send,
  count,
  fanOut,
  timed = () => true,
  concurrency,
  rate,
  untilDelivered = false,
  pid,
  label,
}) {
  const sentAt = new Float64Array(count);
  const latencies = [];
  const deliveredOf = new Uint32Array(count);
  const latenciesToLast = [];
  const lastDeliveryOf = new Array(count);
  const expected = count * fanOut;
  const marker = Buffer.from(`"client_message_id":"${label}-`);
  let deliveries = 0;
  let lastDeliveryAt = 0;
  let allDelivered;
  const done = new Promise((resolve) => (allDelivered = resolve));
  socketsOfUser.forEach((sockets, user) => {
    for (const socket of sockets) {
      socket.removeAllListeners('message');
      socket.on('message', (frame) => {
        const index = numberAfter(frame, marker);
        if (index < 0 || index >= count) return;
        lastDeliveryAt = performance.now();
        if (timed(user, index)) latencies.push(lastDeliveryAt - sentAt[index]);
        if (++deliveredOf[index] === fanOut) {
          latenciesToLast.push(lastDeliveryAt - sentAt[index]);
          lastDeliveryOf[index]?.();
        }
        if (++deliveries === expected) allDelivered();
      });
    }
  });
  const sendOne = (index) => {
    const delivered = untilDelivered
      ? new Promise((resolve) => (lastDeliveryOf[index] = resolve))
      : undefined;
    sentAt[index] = performance.now();
    return Promise.all([send(index, `${label}-${index}`), delivered]);
  };
  const serverCpuBefore = processCpuSeconds(pid);
  const clientCpuBefore = process.cpuUsage();
  const startedAt = performance.now();
  if (rate) await paced(count, rate, sendOne);
  else await inFlight(count, concurrency, sendOne);
  await Promise.race([
    done,
    sleep(120_000).then(() =>
      Promise.reject(new Error(`${label}: ${deliveries} of ${expected} deliveries after 120 s`)),
    ),
  ]);
  const serverCpu = processCpuSeconds(pid) - serverCpuBefore;
  const clientCpu = process.cpuUsage(clientCpuBefore);
  const seconds = (lastDeliveryAt - startedAt) / 1000;
  latencies.sort((a, b) => a - b);
  latenciesToLast.sort((a, b) => a - b);
  return {
    messages: count,
    deliveries,
    'messages/s': Math.round(count / seconds),
    'deliveries/s': Math.round(deliveries / seconds),
    'p50 ms': Number(percentile(latencies, 50).toFixed(1)),
    'p99 ms': Number(percentile(latencies, 99).toFixed(1)),
    'p50 ms to last': Number(percentile(latenciesToLast, 50).toFixed(1)),
    'p99 ms to last': Number(percentile(latenciesToLast, 99).toFixed(1)),
    'server CPU µs per delivery': Number(((serverCpu / deliveries) * 1e6).toFixed(1)),
    'server CPU %': Math.round((serverCpu / seconds) * 100),
    'client CPU %': Math.round(((clientCpu.user + clientCpu.system) / 1e6 / seconds) * 100),
  };
}

/** Starts send number k at k / rate seconds after the start, not waiting for earlier answers. */
async function paced(count, rate, sendOne) {
  const startedAt = performance.now();
  const pending = [];
  let next = 0;
  while (next < count) {
    const due = Math.min(count, Math.floor(((performance.now() - startedAt) * rate) / 1000) + 1);
    while (next < due) pending.push(sendOne(next++));
    await sleep(1);
  }
  await Promise.all(pending);
}
