/**
 * The in-process events between the api areas (in-process-event.ts), created by the app before
 * it builds the areas.
 */
import { InProcessEvent } from './in-process-event.js';

/** A block made durable (again, for a repeated one): `blocker` blocked `blocked`. */
export interface BlockMade {
  readonly blocker: string;
  readonly blocked: string;
}

export interface AreaEvents {
  /** Announced by contacts' block list; location ends the sessions between the two. */
  readonly blockMade: InProcessEvent<BlockMade>;
  /** A session's id, announced by identity when it ends (again too); push drops its subscriptions. */
  readonly sessionEnded: InProcessEvent<string>;
}

export function createAreaEvents(): AreaEvents {
  return { blockMade: new InProcessEvent(), sessionEnded: new InProcessEvent() };
}
