/**
 * A cluster of one api and two ws processes on a Redis of its own, in which ws pod 0 reaches
 * Redis through a TCP proxy: cutting the proxy cuts that pod alone off (its connections dropped,
 * new ones refused), so that something can be published while it has no subscriber connection
 * at all, deterministically.
 */
import { startTcpProxy } from '../platform/shared-state/tcp-proxy.js';
import type { TcpProxy } from '../platform/shared-state/tcp-proxy.js';
import { deploymentForThisBlock } from './private-deployment.js';

export function clusterWithCuttableWsPod() {
  let proxy: TcpProxy | undefined;
  const running = deploymentForThisBlock(
    'cluster',
    {},
    {
      wsPodRedisUrl: async (redis, index) => {
        if (index !== 0) return redis.url;
        proxy = await startTcpProxy(redis.url);
        return proxy.url;
      },
    },
  );
  afterAll(async () => {
    await proxy?.close();
  });
  /** The proxy between ws pod 0 and Redis (there once the deployment has started). */
  const podZeroLink = () => proxy!;
  return { running, podZeroLink };
}
