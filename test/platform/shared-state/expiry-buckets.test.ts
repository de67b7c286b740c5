import { ExpiryBuckets } from '../../../src/platform/shared-state/expiry-buckets.js';

describe('ExpiryBuckets', () => {
  test('takes the keys of the buckets wholly passed, earliest first, and nothing else', () => {
    const buckets = new ExpiryBuckets(100);
    buckets.add('late', 950);
    buckets.add('early', 120);
    buckets.add('same-bucket', 199);
    const removed = buckets.add('removed', 150);
    buckets.remove('removed', removed);
    expect(buckets.nextDueAt()).toBe(200);
    expect(buckets.takeDue(199)).toEqual([]);
    expect(buckets.takeDue(200)).toEqual(['early', 'same-bucket']);
    expect(buckets.takeDue(200)).toEqual([]);
    expect(buckets.nextDueAt()).toBe(1000);
    expect(buckets.takeDue(5000)).toEqual(['late']);
    expect(buckets.nextDueAt()).toBeUndefined();
  });

  test('a bucket filled again after it was taken comes due again', () => {
    const buckets = new ExpiryBuckets(100);
    buckets.add('a', 10);
    expect(buckets.takeDue(100)).toEqual(['a']);
    buckets.add('b', 20);
    expect(buckets.takeDue(100)).toEqual(['b']);
  });
});
