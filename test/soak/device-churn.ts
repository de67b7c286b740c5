/**
 * What the recipients' /ws devices go through besides the faults: now and then one drops its
 * connection (a phone losing its network) and reconnects to the next pod with its position,
 * and some are slow consumers that stop reading for a few seconds.
 */
import { sleep } from '../support/session-api.js';
import type { RealtimeDevice } from '../faults/support/realtime-device.js';
import type { SeededRandom } from './seeded-random.js';
import { SoakLoop } from './soak-loop.js';

const PACE_MS = [2000, 6000] as const;
const SLOW_READ_MS = [2000, 6000] as const;

export class DeviceChurn extends SoakLoop {
  drops = 0;
  slowReads = 0;

  /** `slowConsumers`: the devices that sometimes stop reading; any device may be dropped. */
  constructor(
    private readonly devices: readonly RealtimeDevice[],
    private readonly slowConsumers: readonly RealtimeDevice[],
    private readonly random: SeededRandom,
  ) {
    super();
    this.start(this.run());
  }

  private async run(): Promise<void> {
    while (this.running) {
      await sleep(this.random.between(...PACE_MS));
      if (this.random.chance(0.5)) {
        this.random.pick(this.devices).drop();
        this.drops += 1;
      } else {
        this.slowReads += 1;
        await this.random.pick(this.slowConsumers).readSlowly(this.random.between(...SLOW_READ_MS));
      }
    }
  }
}
