// The fan-out baseline for bench/realtime.mjs: the plain `ws` library doing the least a
// messaging fan-out can do. Sockets say who they are in the URL (`/ws?user=<n>`, no
// authentication); POST /send {from, to, client_message_id, ciphertext} builds the same kind of
// envelope the service sends and writes it to every socket of `to` and of `from`. No storage, no
// Redis, no validation: what is left is the cost of the sockets and the fan-out itself.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { WebSocketServer } from 'ws';

const port = Number(process.env.PORT);
const socketsByUser = new Map();
const sequenceByUser = new Map();

const server = http.createServer((request, response) => {
  if (request.method === 'GET' && request.url === '/health/ready') return response.end('ok');
  if (request.method !== 'POST' || request.url !== '/send') {
    response.statusCode = 404;
    return response.end();
  }
  let body = '';
  request.on('data', (chunk) => (body += chunk));
  request.on('end', () => {
    const { from, to, client_message_id, ciphertext } = JSON.parse(body);
    const message = {
      id: randomUUID(),
      client_message_id,
      sender_address: from,
      recipient_address: to,
      kind: 'text',
      ciphertext,
      sent_at: new Date().toISOString(),
    };
    for (const user of new Set([to, from])) {
      const seq = (sequenceByUser.get(user) ?? 0) + 1;
      sequenceByUser.set(user, seq);
      const frame = JSON.stringify({
        seq,
        type: 'message.new',
        id: randomUUID(),
        at: new Date().toISOString(),
        data: { message },
      });
      for (const socket of socketsByUser.get(user) ?? []) socket.send(frame);
    }
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ success: true, chat_message: message }));
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
