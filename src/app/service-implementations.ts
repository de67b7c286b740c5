/**
 * Which implementation serves each API service. Every service of proto/ has one; a method
 * missing from one would still be routed and answer NOT_IMPLEMENTED (HTTP 501).
 */
import { createAdminService } from '../admin/admin-service.js';
import { AdminService } from '../gen/service/v1/admin_pb.js';
import { AuthService } from '../gen/service/v1/auth_pb.js';
import { ChannelsService } from '../gen/service/v1/channels_pb.js';
import { ContactsService } from '../gen/service/v1/contacts_pb.js';
import { DeviceService } from '../gen/service/v1/device_pb.js';
import { GroupsService } from '../gen/service/v1/groups_pb.js';
import { KeysService } from '../gen/service/v1/keys_pb.js';
import { LocationService } from '../gen/service/v1/location_pb.js';
import { MediaService } from '../gen/service/v1/media_pb.js';
import { MessagesService } from '../gen/service/v1/messages_pb.js';
import { MfaService } from '../gen/service/v1/mfa_pb.js';
import { ModerationService } from '../gen/service/v1/moderation_pb.js';
import { PhoneAuthService } from '../gen/service/v1/phone_pb.js';
import { PollsService } from '../gen/service/v1/polls_pb.js';
import { ProfileService } from '../gen/service/v1/profile_pb.js';
import { PushService } from '../gen/service/v1/push_pb.js';
import { RecoveryService } from '../gen/service/v1/recovery_pb.js';
import { RelayService } from '../gen/service/v1/relay_pb.js';
import { SessionService } from '../gen/service/v1/session_pb.js';
import { StickersService } from '../gen/service/v1/stickers_pb.js';
import { StoriesService } from '../gen/service/v1/stories_pb.js';
import { SystemService } from '../gen/service/v1/system_pb.js';
import type { IdentityAreas } from './identity-wiring.js';
import type { PartialServiceImpl } from '../platform/rpc/rpc-pipeline.js';
import type { FrontendErrorCounter } from '../system/frontend-errors.js';
import { createSystemService } from '../system/system-service.js';
import type { AccountAreas, WalkedAreas } from './account-areas.js';

export function implementationsByService(
  { identity, mfa, phone }: IdentityAreas,
  areas: WalkedAreas & AccountAreas,
  frontendErrors: FrontendErrorCounter,
): ReadonlyMap<string, PartialServiceImpl> {
  return new Map<string, PartialServiceImpl>([
    [SystemService.typeName, createSystemService(frontendErrors)],
    [AuthService.typeName, identity.services.auth],
    [SessionService.typeName, identity.services.session],
    [DeviceService.typeName, identity.services.device],
    [
      AdminService.typeName,
      createAdminService({ lockouts: identity.lockouts, audit: identity.audit }),
    ],
    [MfaService.typeName, mfa.service],
    [PhoneAuthService.typeName, phone.service],
    [MessagesService.typeName, areas.messaging.service],
    [GroupsService.typeName, areas.groups.service],
    [ContactsService.typeName, areas.contacts.service],
    // One service, three parts: presence answers UpdateStatus, account life DeleteAccount,
    // the profile area the rest.
    [
      ProfileService.typeName,
      { ...areas.presence.service, ...areas.profile.service, ...areas.accountLife.service },
    ],
    [KeysService.typeName, areas.keys.service],
    [RelayService.typeName, areas.relay.service],
    [LocationService.typeName, areas.location.service],
    [RecoveryService.typeName, areas.recovery.service],
    [ChannelsService.typeName, areas.channels.service],
    [PushService.typeName, areas.push.service],
    [MediaService.typeName, areas.media.service],
    [PollsService.typeName, areas.polls.service],
    [StickersService.typeName, areas.stickers.service],
    [StoriesService.typeName, areas.stories.service],
    [ModerationService.typeName, areas.moderation.service],
  ]);
}
