// The fan-out baseline for bench/realtime.mjs and bench/groups.mjs: the plain `ws` library doing
// the least a messaging fan-out can do. Sockets say who they are in the URL (`/ws?user=<n>`, no
// authentication). POST /groups {members} makes a group of those users and answers its
// `group_id`. POST /send {from, to | group_id, client_message_id, ciphertext} builds the same
// kind of envelope the service sends and writes it to every socket of `to` and of `from`, or of
// every member of the group. No storage, no Redis, no validation: what is left is the cost of
// the sockets and the fan-out itself.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { WebSocketServer } from 'ws';

const port = Number(process.env.PORT);
const socketsByUser = new Map();
const sequenceByUser = new Map();
const membersByGroup = new Map();

/**
 * Writes one event to every socket of `users`, each user's copy numbered in that user's own
 * sequence (as the service numbers each user's stream). The envelope is serialised once and
 * each copy only prefixes its number, as the service's event stream does: a group message is
 * one serialisation, not one per member.
 */
function deliver(users, message) {
  const envelope = JSON.stringify({
    type: 'message.new',
    id: randomUUID(),
    at: new Date().toISOString(),
    data: { message },
  }).slice(1);
  for (const user of users) {
    const seq = (sequenceByUser.get(user) ?? 0) + 1;
    sequenceByUser.set(user, seq);
    const frame = `{"seq":${seq},${envelope}`;
    for (const socket of socketsByUser.get(user) ?? []) socket.send(frame);
  }
}

function send({ from, to, group_id, client_message_id, ciphertext }) {
  const message = {
    id: randomUUID(),
    client_message_id,
    sender_address: from,
    ...(group_id ? { group_id } : { recipient_address: to }),
    kind: 'text',
    ciphertext,
    sent_at: new Date().toISOString(),
  };
  deliver(group_id ? membersByGroup.get(group_id) : new Set([to, from]), message);
  return { success: true, chat_message: message };
}

function createGroup({ members }) {
  const group_id = randomUUID();
  membersByGroup.set(group_id, members.map(String));
  return { success: true, group_id };
}

const routes = { '/send': send, '/groups': createGroup };

const server = http.createServer((request, response) => {
  if (request.method === 'GET' && request.url === '/health/ready') return response.end('ok');
  const route = routes[request.url];
  if (request.method !== 'POST' || !route) {
    response.statusCode = 404;
    return response.end();
  }
  let body = '';
  request.on('data', (chunk) => (body += chunk));
  request.on('end', () => {
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify(route(JSON.parse(body))));
  });
});

const wss = new WebSocketServer({ server, path: '/ws' });
wss.on('connection', (socket, request) => {
  const user = new URL(request.url, 'http://localhost').searchParams.get('user');
  if (!socketsByUser.has(user)) socketsByUser.set(user, new Set());
  socketsByUser.get(user).add(socket);
  socket.send(JSON.stringify({ type: 'hello', address: user }));
  socket.on('close', () => socketsByUser.get(user)?.delete(socket));
});

server.listen(port, '127.0.0.1');
process.on('SIGTERM', () => {
  for (const socket of wss.clients) socket.terminate();
  server.close(() => process.exit(0));
});
