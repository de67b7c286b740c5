/**
 * A connection's queue of client frames (ws-socket.ts): frames run one after the other in the
 * order they came, and a connection with nothing in flight keeps no promise.
 */
import { newSocketState, queueInbound } from '../../src/realtime/ws-socket.js';

const idleState = () => newSocketState(undefined);

it('runs queued frames in order, each after the one before has finished', async () => {
  const state = idleState();
  const order: string[] = [];
  let finishFirst = (): void => undefined;
  queueInbound(
    state,
    () =>
      new Promise<void>((resolve) => {
        order.push('first started');
        finishFirst = () => {
          order.push('first finished');
          resolve();
        };
      }),
  );
  queueInbound(state, () => void order.push('second'));
  await new Promise((resolve) => setTimeout(resolve, 10));
  expect(order).toEqual(['first started']);
  finishFirst();
  await state.inbound;
  expect(order).toEqual(['first started', 'first finished', 'second']);
});

it('lets go of the queue once it is empty, and queues anew after', async () => {
  const state = idleState();
  queueInbound(state, () => undefined);
  expect(state.inbound).toBeDefined();
  await state.inbound;
  expect(state.inbound).toBeUndefined();
  const ran: number[] = [];
  queueInbound(state, () => void ran.push(1));
  await state.inbound;
  expect(ran).toEqual([1]);
  expect(state.inbound).toBeUndefined();
});
