// What a server process keeps, read after a full garbage collection: its resident set and its
// JS heap in use. Read without collecting first, the resident set also counts whatever garbage
// the set-up left (the users' sign-ins) until a collection happens to free it while the sockets
// open, which made "memory per idle connection" swing from -0.4 to 2.8 KiB between runs.
// The process must run with `inspectFlag(port)`: the collection and the reading go through its
// inspector (HeapProfiler.collectGarbage, then Runtime.evaluate), which nothing else in it uses.
import { once } from 'node:events';
import WebSocket from 'ws';
import { residentBytes } from './support.mjs';

/** The node option that opens the inspector on `port` (loopback only). */
export const inspectFlag = (port) => `--inspect=127.0.0.1:${port}`;

/** `{ rss, heap }` in bytes of the process `pid` inspected on `port`, after a full collection. */
export async function retainedMemory(pid, port) {
  const [target] = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
  const session = new WebSocket(target.webSocketDebuggerUrl);
  await once(session, 'open');
  const answers = new Map();
  session.on('message', (data) => {
    const answer = JSON.parse(data);
    answers.get(answer.id)?.(answer);
  });
  const call = (id, method, params) =>
    new Promise((resolve) => {
      answers.set(id, resolve);
      session.send(JSON.stringify({ id, method, params }));
    });
  try {
    await call(1, 'HeapProfiler.collectGarbage');
    const { result } = await call(2, 'Runtime.evaluate', {
      expression: 'process.memoryUsage().heapUsed',
      returnByValue: true,
    });
    return { rss: residentBytes(pid), heap: result.result.value };
  } finally {
    session.close();
  }
}
