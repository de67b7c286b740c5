/** LocationService (location.proto): start, update and stop live location sharing. */
import type { HandlerContext } from '@connectrpc/connect';
import type {
  StartLocationSharingRequest,
  StopLocationSharingRequest,
  UpdateLocationRequest,
} from '../gen/service/v1/location_pb.js';
import { requireCaller } from '../identity/auth/caller.js';
import { isWalletAddress } from '../accounts/wallet-address.js';
import type { Conversations } from '../messaging/conversations/conversations.js';
import type { LocationSettings } from '../platform/config/settings.js';
import { invalidArgument } from '../platform/errors/api-error.js';
import { sessionView } from './location-session.js';
import type { LocationSharing, Position } from './location-sharing.js';

const DURATION = { defaultSeconds: 3600, maxSeconds: 28_800 } as const;
const MAX_SESSION_ID = 64;
const MAX_CIPHERTEXT_BYTES = 4096;

/** The optional coordinate fields and their ranges (location.proto); `below` excludes the bound. */
const RANGES = {
  latitude: { field: 'latitude', min: -90, max: 90 },
  longitude: { field: 'longitude', min: -180, max: 180 },
  accuracyM: { field: 'accuracy_m', min: 0, max: 100_000 },
  headingDeg: { field: 'heading_deg', min: 0, below: 360 },
  speedMps: { field: 'speed_mps', min: 0, max: 1000 },
} as const;

type RangeName = keyof typeof RANGES;

export interface LocationServiceDependencies {
  readonly sharing: LocationSharing;
  readonly conversations: Conversations;
  readonly settings: LocationSettings;
}

export function createLocationService({
  sharing,
  conversations,
  settings,
}: LocationServiceDependencies) {
  const durationMs = (seconds: number): number => {
    if (seconds === 0) return DURATION.defaultSeconds * 1000;
    const min = settings.minDurationSeconds;
    if (seconds < min || seconds > DURATION.maxSeconds)
      throw invalidArgument(`duration_seconds is 0 or ${min} to ${DURATION.maxSeconds}`);
    return seconds * 1000;
  };

  const sessionIdOf = (request: { sessionId: string }): string => {
    if (request.sessionId === '') throw invalidArgument('session_id is required');
    if (request.sessionId.length > MAX_SESSION_ID)
      throw invalidArgument(`session_id has at most ${MAX_SESSION_ID} characters`);
    return request.sessionId;
  };

  return {
    async startLocationSharing(request: StartLocationSharingRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      if (isWalletAddress(request.peerAddress) && request.peerAddress.toLowerCase() === caller)
        throw invalidArgument('peer_address must be another user');
      const duration = durationMs(request.durationSeconds);
      const target = await conversations.resolve(caller, {
        peerAddress: request.peerAddress,
        groupId: request.groupId,
      });
      const session = await sharing.start(caller, target, duration);
      return { success: true, message: 'Location sharing started', session: sessionView(session) };
    },

    async updateLocation(request: UpdateLocationRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const sessionId = sessionIdOf(request);
      const { session, at } = await sharing.update(caller, sessionId, checkedPosition(request));
      return {
        success: true,
        message: 'Location updated',
        sessionId,
        updatedAt: at.toISOString(),
        expiresAt: session.expiresAt.toISOString(),
      };
    },

    async stopLocationSharing(request: StopLocationSharingRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const session = await sharing.stop(caller, sessionIdOf(request));
      return {
        success: true,
        message:
          session.state === 'expired' ? 'Location sharing had expired' : 'Location sharing stopped',
        session: sessionView(session),
      };
    },
  };
}

/** Either the ciphertext alone, or latitude and longitude with the optional fields, each in range. */
function checkedPosition(request: UpdateLocationRequest): Position {
  const given = (name: RangeName) => request[name] !== undefined;
  const coordinates = given('latitude') || given('longitude');
  const extras = given('accuracyM') || given('headingDeg') || given('speedMps');
  if (request.ciphertext.length > 0) {
    if (coordinates || extras)
      throw invalidArgument('Send either ciphertext or coordinates, not both');
    if (request.ciphertext.length > MAX_CIPHERTEXT_BYTES)
      throw invalidArgument(`ciphertext has at most ${MAX_CIPHERTEXT_BYTES} bytes`);
    return { ciphertext: request.ciphertext };
  }
  if (!given('latitude') || !given('longitude')) {
    throw invalidArgument(
      coordinates
        ? 'latitude and longitude go together'
        : 'Send ciphertext, or latitude and longitude',
    );
  }
  for (const name of Object.keys(RANGES) as RangeName[]) {
    const value = request[name];
    if (value !== undefined && !inRange(value, RANGES[name]))
      throw invalidArgument(`${RANGES[name].field} is out of range`);
  }
  return {
    latitude: request.latitude!,
    longitude: request.longitude!,
    ...(request.accuracyM === undefined ? {} : { accuracyM: request.accuracyM }),
    ...(request.headingDeg === undefined ? {} : { headingDeg: request.headingDeg }),
    ...(request.speedMps === undefined ? {} : { speedMps: request.speedMps }),
  };
}

function inRange(value: number, range: { min: number; max?: number; below?: number }): boolean {
  if (!Number.isFinite(value) || value < range.min) return false;
  return range.below === undefined ? value <= range.max! : value < range.below;
}
