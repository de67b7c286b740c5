/**
 * Votes on each store engine (MongoDB when MONGODB_URL is set): first votes of one user racing
 * from two repositories (as two api pods would) leave one vote record, on MongoDB too, where
 * concurrent upserts of one id can meet the unique `_id` and the loser must update instead.
 */
import { PollVotes, pollVoteIndexes } from '../../src/polls/poll-votes.js';
import { forEachStore } from '../support/stores-under-test.js';
import type { StoreUnderTest } from '../support/stores-under-test.js';

const VOTER = `0x${'4'.repeat(40)}`;
const OTHER = `0x${'5'.repeat(40)}`;

forEachStore('poll_votes', (engine, open) => {
  describe(engine, () => {
    let underTest: StoreUnderTest;
    beforeEach(async () => {
      underTest = await open();
      await underTest.store.ensureIndexes(pollVoteIndexes);
    });
    afterEach(() => underTest.dispose());

    it('concurrent first votes and changes of one voter from two pods leave exactly one vote', async () => {
      const [podA, podB] = [new PollVotes(underTest.store), new PollVotes(underTest.store)];
      for (let round = 0; round < 5; round++) {
        const pollId = `poll-${round}`;
        await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            (i % 2 === 0 ? podA : podB).cast(pollId, VOTER, [`option-${i % 3}`]),
          ),
        );
        await podA.cast(pollId, OTHER, ['option-0', 'option-1']);
        const tally = await podB.tally(pollId, VOTER);
        expect(tally.voters).toBe(2);
        expect(tally.chosen.size).toBe(1);
        const counted = [...tally.countByOption.values()].reduce((sum, count) => sum + count, 0);
        expect(counted).toBe(3);
      }
    });

    it('tallies several polls in one read, each with the caller’s own choice', async () => {
      const votes = new PollVotes(underTest.store);
      await votes.cast('a', VOTER, ['a-1']);
      await votes.cast('a', OTHER, ['a-2']);
      await votes.cast('b', OTHER, ['b-1', 'b-2']);
      const tallies = await votes.tallies(['a', 'b', 'c'], VOTER);
      expect([...tallies.get('a')!.chosen]).toEqual(['a-1']);
      expect(tallies.get('a')!.voters).toBe(2);
      expect(tallies.get('b')).toMatchObject({ voters: 1, chosen: new Set() });
      expect([...tallies.get('b')!.countByOption.entries()]).toEqual([
        ['b-1', 1],
        ['b-2', 1],
      ]);
      expect(tallies.get('c')).toMatchObject({ voters: 0 });
    });
  });
});
