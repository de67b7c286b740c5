/** cluster-key-slot ships no types: the Redis Cluster hash slot (0..16383) of a key, hash tags honoured. */
declare module 'cluster-key-slot' {
  export default function calculateSlot(key: string | Buffer): number;
}
