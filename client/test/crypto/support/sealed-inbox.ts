/**
 * A recipient's `/ws` connection (the `ws` library, as a Node app would use), waiting for the
 * relay's `sealed.message` events (docs/realtime.md).
 */
import WebSocket from 'ws';

interface Frame {
  type: string;
  data?: { sealed_payload?: string };
}

export async function nextSealedPayload(
  baseUrl: string,
  accessToken: string,
  timeoutMs = 10_000,
): Promise<string> {
  const ticketResponse = await fetch(`${baseUrl}/api/v1/auth/ws-ticket`, {
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
    body: '{}',
  });
  const { ticket } = (await ticketResponse.json()) as { ticket: string };
  const url = new URL('/ws', baseUrl.replace(/^http/, 'ws'));
  url.searchParams.set('ticket', ticket);
  const socket = new WebSocket(url);
  try {
    return await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no sealed.message')), timeoutMs);
      socket.on('message', (data: Buffer) => {
        const frame = JSON.parse(data.toString()) as Frame;
        if (frame.type === 'sealed.message' && frame.data?.sealed_payload) {
          clearTimeout(timer);
          resolve(frame.data.sealed_payload);
        }
      });
      socket.on('error', reject);
    });
  } finally {
    socket.close();
  }
}
