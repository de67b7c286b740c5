/**
 * Which implementation serves each API service. A service (or method) missing here is still
 * routed, and answers NOT_IMPLEMENTED (HTTP 501) until its issue lands.
 */
import { createAdminService } from '../admin/admin-service.js';
import { AdminService } from '../gen/service/v1/admin_pb.js';
import { AuthService } from '../gen/service/v1/auth_pb.js';
import { DeviceService } from '../gen/service/v1/device_pb.js';
import { SessionService } from '../gen/service/v1/session_pb.js';
import { SystemService } from '../gen/service/v1/system_pb.js';
import { ContactsService } from '../gen/service/v1/contacts_pb.js';
import { MessagesService } from '../gen/service/v1/messages_pb.js';
import { ProfileService } from '../gen/service/v1/profile_pb.js';
import { createContactsService } from '../contacts/contacts-service.js';
import { createMessagesService } from '../messaging/messages-service.js';
import type { Messaging } from '../messaging/messaging-area.js';
import { createPresenceService } from '../presence/presence-service.js';
import { MfaService } from '../gen/service/v1/mfa_pb.js';
import { PhoneAuthService } from '../gen/service/v1/phone_pb.js';
import { createAuthService } from '../identity/auth-service.js';
import { createMfaService } from '../identity/mfa-service.js';
import { createPhoneAuthService } from '../identity/phone-auth-service.js';
import { createDeviceService } from '../identity/device-service.js';
import type { Identity } from '../identity/identity-area.js';
import { createSessionService } from '../identity/session-service.js';
import type { Metrics } from '../platform/metrics/metrics.js';
import type { PartialServiceImpl } from '../platform/rpc/rpc-pipeline.js';
import type { DocumentStore } from '../platform/store/document-store.js';
import { createSystemService } from '../system/system-service.js';

export interface ServiceDependencies {
  readonly metrics: Metrics;
  readonly store: DocumentStore;
  readonly identity: Identity;
  readonly messaging: Messaging;
}

export function apiImplementations(deps: ServiceDependencies): ReadonlyMap<string, PartialServiceImpl> {
  return new Map<string, PartialServiceImpl>([
    [SystemService.typeName, createSystemService(deps.metrics)],
    [AuthService.typeName, createAuthService(deps.identity)],
    [SessionService.typeName, createSessionService(deps.identity)],
    [DeviceService.typeName, createDeviceService(deps.store)],
    [AdminService.typeName, createAdminService(deps.identity)],
    [MfaService.typeName, createMfaService(deps.identity)],
    [PhoneAuthService.typeName, createPhoneAuthService(deps.identity)],
    [MessagesService.typeName, createMessagesService(deps.messaging)],
    [ContactsService.typeName, createContactsService(deps.messaging.blocks, deps.messaging.verifications, deps.messaging.conversations)],
    [ProfileService.typeName, createPresenceService(deps.messaging.presence)],
  ]);
}
