/**
 * Key-bundle fetches with one-time prekeys: a few owners publish a bundle with a handful of
 * one-time prekeys, others fetch it, and every prekey handed out is written down; when an
 * owner's prekeys run out it uploads more (new ids), as a client does. A prekey handed out
 * twice breaks forward secrecy for two sessions: the checker counts them.
 */
import { KeyOwner, oneTimePreKeys } from '../support/key-bundles.js';
import { sleep } from '../support/session-api.js';
import type { SignedIn } from '../support/wallet.js';
import type { ApiEndpoint } from '../faults/support/realtime-device.js';
import type { Recorder } from './recorder.js';
import type { SeededRandom } from './seeded-random.js';
import { SoakLoop } from './soak-loop.js';

const PREKEYS_PER_UPLOAD = 10;
const PACE_MS = [150, 500] as const;

interface Owner {
  readonly session: SignedIn;
  readonly keys: KeyOwner;
  nextPreKeyId: number;
}

export class PrekeyFetches extends SoakLoop {
  /** `address keyId publicKey` of every one-time prekey handed out, in order. */
  readonly handedOut: string[] = [];

  private constructor(
    private readonly api: ApiEndpoint,
    private readonly recorder: Recorder,
    private readonly owners: Owner[],
    private readonly viewers: readonly SignedIn[],
    private readonly random: SeededRandom,
  ) {
    super();
    this.start(this.run());
  }

  /** Publishes each owner's bundle (before the faults begin), then starts fetching. */
  static async start(
    api: ApiEndpoint,
    recorder: Recorder,
    owners: readonly SignedIn[],
    viewers: readonly SignedIn[],
    random: SeededRandom,
  ): Promise<PrekeyFetches> {
    const published: Owner[] = [];
    for (const session of owners) {
      const keys = new KeyOwner(session.user);
      const answer = await recorder.call('publish key bundle', api.baseUrl, {
        path: '/api/v1/keys',
        body: await keys.bundle({ prekeys: PREKEYS_PER_UPLOAD }),
        session,
      });
      if (answer.outcome !== 200) throw new Error(`publishing a key bundle: ${answer.outcome}`);
      published.push({ session, keys, nextPreKeyId: PREKEYS_PER_UPLOAD + 1 });
    }
    return new PrekeyFetches(api, recorder, published, viewers, random);
  }

  private async run(): Promise<void> {
    while (this.running) {
      const owner = this.random.pick(this.owners);
      const answer = await this.recorder.call('key-bundle fetch', this.api.baseUrl, {
        path: `/api/v1/keys/${owner.session.user.address}`,
        session: this.random.pick(this.viewers),
      });
      if (answer.outcome === 200) {
        const prekeys = answer.body.keyBundle.oneTimePreKeys as {
          keyId: number;
          publicKey: string;
        }[];
        for (const prekey of prekeys)
          this.handedOut.push(`${owner.keys.address} ${prekey.keyId} ${prekey.publicKey}`);
        if (prekeys.length === 0) await this.replenish(owner);
      }
      await sleep(this.random.between(...PACE_MS));
    }
  }

  private async replenish(owner: Owner): Promise<void> {
    await this.recorder.call('prekey upload', this.api.baseUrl, {
      path: '/api/v1/keys/one-time-prekeys',
      body: { oneTimePreKeys: oneTimePreKeys(PREKEYS_PER_UPLOAD, owner.nextPreKeyId) },
      session: owner.session,
    });
    // An upload whose answer was lost may have stored its ids: never reuse them.
    owner.nextPreKeyId += PREKEYS_PER_UPLOAD;
  }
}
