/**
 * The reads of a client opening the app: its chat list and a conversation's latest page, by a
 * random participant, all through the run. Their answers only count as operations (a 5xx
 * outside a fault window is a defect); what is stored is read back by the checker.
 */
import { sleep } from '../support/session-api.js';
import type { ApiEndpoint } from '../faults/support/realtime-device.js';
import type { SoakConversation } from './conversations.js';
import type { Recorder } from './recorder.js';
import type { SeededRandom } from './seeded-random.js';
import { SoakLoop } from './soak-loop.js';

const PACE_MS = [200, 600] as const;

export class HistoryReads extends SoakLoop {
  constructor(
    private readonly api: ApiEndpoint,
    private readonly recorder: Recorder,
    private readonly conversations: readonly SoakConversation[],
    private readonly random: SeededRandom,
  ) {
    super();
    this.start(this.run());
  }

  private async run(): Promise<void> {
    while (this.running) {
      const conversation = this.random.pick(this.conversations);
      const session = conversation.reader;
      await this.recorder.call('chat list read', this.api.baseUrl, {
        path: '/api/v1/chats',
        session,
      });
      await this.recorder.call('history read', this.api.baseUrl, {
        path:
          conversation.kind === 'channel'
            ? `/api/v1/channels/${conversation.target.channel_id}/posts?page_size=20`
            : `/api/v1/messages?${new URLSearchParams(conversation.readerSide).toString()}&page_size=20`,
        session,
      });
      await sleep(this.random.between(...PACE_MS));
    }
  }
}
