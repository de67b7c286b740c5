/**
 * Every environment variable the service reads, grouped in the sections that components
 * receive: each part of the service gets its own section (the HTTP servers `http`, the token
 * service `tokens`, the SMS provider `sms`…), never the whole configuration. Defaults make
 * `npm start` work on one machine with no external services (embedded store, in-process
 * shared state). The README table of variables is checked against these declarations.
 */
import { chainRpcListSetting, domainListSetting } from './ethereum-settings.js';
import { limitOverridesSetting } from './limit-overrides.js';
import { mongoConnectionStringSetting } from './mongo-connection-string.js';
import { peerListSetting } from './peer-list.js';
import { ratioSetting } from './ratio-setting.js';
import { availableParallelism } from 'node:os';
import {
  booleanSetting,
  choiceSetting,
  cidrListSetting,
  computedIntegerSetting,
  dateSetting,
  durationSetting,
  integerSetting,
  optionalTextSetting,
  optionalUrlSetting,
  stringSetting,
} from './setting.js';
import type { Setting } from './setting.js';

export const ROLES = ['all', 'api', 'ws'] as const;
export type Role = (typeof ROLES)[number];

export const settings = {
  process: {
    role: choiceSetting(
      'ROLE',
      'Which parts this process runs: `all` (everything, one process), `api` (REST gateway, gRPC, ops), `ws` (WebSocket tier and ops).',
      ROLES,
      'all',
    ),
    logLevel: choiceSetting(
      'LOG_LEVEL',
      'Minimum log level.',
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
      'info',
    ),
    shutdownTimeoutMs: integerSetting(
      'SHUTDOWN_TIMEOUT_MS',
      'How long SIGTERM waits for in-flight requests before closing anyway.',
      25_000,
      0,
      600_000,
    ),
  },
  tracing: {
    endpoint: optionalUrlSetting(
      'OTEL_EXPORTER_OTLP_ENDPOINT',
      'OpenTelemetry: base URL of the OTLP/HTTP collector; traces go to `<url>/v1/traces`. Unset (and no OTEL_EXPORTER_OTLP_TRACES_ENDPOINT): tracing is off and costs nothing.',
      ['http:', 'https:'],
    ),
    tracesEndpoint: optionalUrlSetting(
      'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
      'OpenTelemetry: the full URL spans are posted to, instead of the one derived from OTEL_EXPORTER_OTLP_ENDPOINT.',
      ['http:', 'https:'],
    ),
    protocol: choiceSetting(
      'OTEL_EXPORTER_OTLP_PROTOCOL',
      'OpenTelemetry: how spans are encoded for the collector.',
      ['http/protobuf', 'http/json'],
      'http/protobuf',
    ),
    serviceName: optionalTextSetting(
      'OTEL_SERVICE_NAME',
      "OpenTelemetry: the `service.name` of this process's spans. Unset: `messaging-<ROLE>`.",
    ),
    sampler: choiceSetting(
      'OTEL_TRACES_SAMPLER',
      "OpenTelemetry: which requests are traced. `parentbased_*` follow a caller's `traceparent` decision.",
      [
        'parentbased_traceidratio',
        'parentbased_always_on',
        'parentbased_always_off',
        'traceidratio',
        'always_on',
        'always_off',
      ],
      'parentbased_traceidratio',
    ),
    samplerRatio: ratioSetting(
      'OTEL_TRACES_SAMPLER_ARG',
      'OpenTelemetry: the fraction of new traces kept by the `traceidratio` samplers.',
      0.01,
    ),
    disabled: booleanSetting(
      'OTEL_SDK_DISABLED',
      'OpenTelemetry: true turns tracing off even with an endpoint set.',
      false,
    ),
  },
  http: {
    host: stringSetting('HOST', 'Interface to listen on.', '0.0.0.0'),
    port: integerSetting(
      'PORT',
      'HTTP port: REST gateway, /ws, /health, /metrics, /swagger/.',
      8080,
      0,
      65535,
    ),
    grpcPort: integerSetting(
      'GRPC_PORT',
      'gRPC, Connect and gRPC-Web port (HTTP/2 cleartext and HTTP/1.1).',
      8081,
      0,
      65535,
    ),
    trustedProxies: cidrListSetting(
      'TRUSTED_PROXIES',
      'Comma-separated CIDRs of reverse proxies whose X-Forwarded-For is believed (e.g. `10.0.0.0/8,fd00::/8`). Unset: none; the client is the socket address.',
    ),
    maxBodyBytes: integerSetting(
      'MAX_BODY_BYTES',
      'Largest accepted JSON request body in bytes (413 above).',
      1_048_576,
      1024,
      64 * 1_048_576,
    ),
    legacySunset: dateSetting(
      'API_LEGACY_SUNSET',
      'Sunset date announced for the unversioned /api/ paths.',
      '2027-06-30',
    ),
  },
  store: {
    dataDir: stringSetting(
      'DATA_DIR',
      'Directory of the embedded store (used when MONGODB_URL is unset).',
      './data',
    ),
    mongodbUrl: mongoConnectionStringSetting(
      'MONGODB_URL',
      'MongoDB connection string of a replica set, naming the database (`mongodb://h1:27017,h2:27017/messaging?replicaSet=rs0`, or `mongodb+srv://…/messaging`). Unset: the embedded store in DATA_DIR.',
    ),
    mongodbAllowStandalone: booleanSetting(
      'MONGODB_ALLOW_STANDALONE',
      'Accept a MongoDB server that is not a replica-set member (development only: no majority write concern, no failover). false: such a server stops the start.',
      false,
    ),
    compactionBytes: integerSetting(
      'STORE_COMPACTION_BYTES',
      'Embedded store: journal size in bytes that starts a compaction (a snapshot, written off the event loop, and a fresh journal). Smaller: shorter recovery, more snapshot writing.',
      64 * 1_048_576,
      1_048_576,
      4 * 1_073_741_824,
    ),
    allowEmbeddedStore: booleanSetting(
      'ALLOW_EMBEDDED_STORE',
      'Let ROLE=api run without MONGODB_URL, on the embedded store in DATA_DIR: for a single api pod only, since each pod would have its own data. ROLE=all never needs it.',
      false,
    ),
  },
  sharedState: {
    redisUrl: optionalUrlSetting(
      'REDIS_URL',
      'Redis connection string for state shared between pods. Unset: in-process state (one process only).',
      ['redis:', 'rediss:'],
    ),
    cluster: booleanSetting(
      'REDIS_CLUSTER',
      'REDIS_URL names one node of a Redis Cluster (7.0 or later): keys and scripts go to the shard of their slot, pub/sub is sharded (SPUBLISH/SSUBSCRIBE). false: REDIS_URL is one Redis.',
      false,
    ),
    keyPrefix: stringSetting(
      'REDIS_KEY_PREFIX',
      'Prefix of every Redis key and channel.',
      'svc:',
      /^[\w:.-]{1,64}$/,
    ),
  },
  service: {
    name: stringSetting(
      'SERVICE_NAME',
      'The brand name in the sign-in message templates (`<SERVICE_NAME> Sign In`).',
      'Service',
      /^[^\r\n]{1,64}$/,
    ),
  },
  sessions: {
    ttlMs: durationSetting(
      'SERVICE_SESSION_TTL',
      'Sliding session lifetime: every validated request resets it.',
      '720h',
    ),
    idleTimeoutMs: durationSetting(
      'SERVICE_SESSION_IDLE_TIMEOUT',
      'Ends a session that saw no request for this long (e.g. `2h`). Unset or `0`: off.',
      '0',
    ),
    cookieSecure: booleanSetting(
      'SESSION_COOKIE_SECURE',
      'Mark the session and CSRF cookies Secure. Set false only for plain-HTTP development on a host other than localhost.',
      true,
    ),
    cookieSameSite: choiceSetting(
      'SESSION_COOKIE_SAMESITE',
      'SameSite attribute of the session and CSRF cookies.',
      ['strict', 'lax'],
      'strict',
    ),
  },
  signIn: {
    signatureWorkers: computedIntegerSetting(
      'SIGNATURE_WORKERS',
      "Worker threads that recover the signer of wallet signatures (sign-in, signed requests, recovery decisions), off the event loop. Unset: the available parallelism (`os.availableParallelism()`; set it to the pod's CPU limit). 0: on the main thread.",
      availableParallelism,
      0,
      64,
    ),
  },
  /** Wallet signatures beyond EOAs: contract wallets (ERC-1271, ERC-6492) and SIWE (EIP-4361). */
  wallets: {
    rpcUrls: chainRpcListSetting(
      'ETH_RPC_URLS',
      'JSON-RPC endpoints of the chains whose contract wallets (ERC-1271, ERC-6492) may sign: ' +
        'comma-separated `<chain id>=<url>` (e.g. ' +
        '`1=https://eth.example,8453=https://base.example`). A signature that does not recover ' +
        'to the wallet is checked by `eth_call` there. Unset: contract wallets are refused ' +
        '(401 UNAUTHORIZED, as any signature not by the wallet); EOAs work without it.',
    ),
    defaultChainId: integerSetting(
      'ETH_DEFAULT_CHAIN_ID',
      'The chain on which contract wallets are verified for what names no chain: the sign-in ' +
        'templates, X-Signature, recovery decisions and key-bundle wallet bindings. SIWE ' +
        'messages name their own chain (accepted: this one and every chain of ETH_RPC_URLS).',
      1,
      1,
      Number.MAX_SAFE_INTEGER,
    ),
    rpcTimeoutMs: durationSetting(
      'ETH_RPC_TIMEOUT',
      'How long one JSON-RPC request of a contract-wallet verification may take; past it the ' +
        'request answers 503 with Retry-After (never 401).',
      '3s',
    ),
    siweDomains: domainListSetting(
      'SIWE_DOMAINS',
      'The domains (EIP-4361 `domain`: host or host:port, comma-separated) a Sign-In with ' +
        'Ethereum message may name, and whose URIs its `uri` may be on; any other is refused ' +
        '(401 SIWE_DOMAIN_MISMATCH: a message made for another site). Set it to the public ' +
        "host(s) of the web app. The default fits the service's default PORT on one machine.",
      'localhost:8080,localhost',
    ),
  },
  registration: {
    powDifficultyBits: integerSetting(
      'SERVICE_POW_DIFFICULTY_BITS',
      'Proof of work for new accounts: leading zero bits of sha256(message || pow_nonce). 0: off.',
      0,
      0,
      32,
    ),
  },
  tokens: {
    signingKey: optionalTextSetting(
      'JWT_SIGNING_KEY',
      'Private key that signs tokens: PEM (PKCS#8) or JWK JSON, Ed25519 or P-256. Unset: a key created once in DATA_DIR/keys/ (one node only).',
    ),
    signingKeyId: optionalTextSetting(
      'JWT_SIGNING_KEY_ID',
      'Key id (kid) of JWT_SIGNING_KEY. Unset: its JWK kid, else its RFC 7638 thumbprint.',
    ),
    verificationKeys: optionalTextSetting(
      'JWT_VERIFICATION_KEYS',
      'JWKS (JSON) of former signing keys, public parts with their kid: tokens they signed stay valid until they expire (key rotation).',
    ),
    issuer: stringSetting(
      'JWT_ISSUER',
      'The `iss` of issued tokens, and the only one accepted.',
      'messaging-service',
    ),
  },
  mfa: {
    encryptionKey: optionalTextSetting(
      'MFA_ENCRYPTION_KEY',
      'AES-256-GCM key (32 bytes as 64 hex digits or base64) that encrypts TOTP secrets at rest and keys the backup-code hashes. Unset: a key created once in DATA_DIR/keys/ (one node only).',
    ),
    trustedDeviceTtlMs: durationSetting(
      'MFA_TRUSTED_DEVICE_TTL',
      'How long a device trusted at the MFA step skips it at sign-in.',
      '720h',
    ),
  },
  phone: {
    hashSalt: stringSetting(
      'PHONE_HASH_SALT',
      'The public salt of phone hashes (PBKDF2-HMAC-SHA256 of the E.164 number), published with the clients; changing it orphans every stored hash.',
      'messaging-service-phone-v1',
      /^[^\r\n]{8,128}$/,
    ),
  },
  sms: {
    provider: choiceSetting(
      'SMS_PROVIDER',
      'Who sends verification SMS: `outbox` (development: appended to DATA_DIR/sms-outbox.jsonl and logged, nothing sent) or `twilio`.',
      ['outbox', 'twilio'],
      'outbox',
    ),
    from: optionalTextSetting(
      'SMS_FROM',
      'Sender of the SMS: an E.164 number, or a Twilio Messaging Service SID (`MG…`). Required with `twilio`.',
    ),
    twilioAccountSid: optionalTextSetting(
      'TWILIO_ACCOUNT_SID',
      'Twilio account SID (`AC…`). Required with SMS_PROVIDER=twilio.',
    ),
    twilioAuthToken: optionalTextSetting(
      'TWILIO_AUTH_TOKEN',
      'Twilio auth token. Required with SMS_PROVIDER=twilio.',
    ),
    twilioApiUrl: optionalUrlSetting(
      'TWILIO_API_URL',
      "Overrides Twilio's API base URL (tests, egress proxies). Unset: `https://api.twilio.com`.",
      ['https:', 'http:'],
    ),
  },
  limits: {
    enabled: booleanSetting(
      'RATE_LIMITS_ENABLED',
      'Apply the abuse controls: the token buckets of the spec (per IP, per user, per endpoint, authentication attempts) and lockouts after repeated failed sign-ins. false only for tests and benchmarks.',
      true,
    ),
    overrides: limitOverridesSetting(
      'JSON overriding the spec\'s buckets: keys `ip`, `user`, `auth`, `default` or `<Service>.<Method>`; values `{"limit": n, "burst": n, "window_seconds": n}`.',
    ),
    wsFramesPerMinute: integerSetting(
      'WS_RATE_LIMIT_PER_MIN',
      "WebSocket frames a user may send per minute, across all of the user's connections.",
      30,
      1,
      100_000,
    ),
    wsFrameBurst: integerSetting(
      'WS_RATE_LIMIT_BURST',
      'Quick-succession allowance of WebSocket frames per user.',
      10,
      1,
      100_000,
    ),
  },
  captcha: {
    provider: choiceSetting(
      'CAPTCHA_PROVIDER',
      'CAPTCHA gate on RPCs with a `captcha_token` (sign-in): `off`, `turnstile` (Cloudflare) or `hcaptcha`.',
      ['off', 'turnstile', 'hcaptcha'],
      'off',
    ),
    secret: optionalTextSetting(
      'CAPTCHA_SECRET',
      'Secret key of the CAPTCHA provider; required when CAPTCHA_PROVIDER is not `off`.',
    ),
    verifyUrl: optionalUrlSetting(
      'CAPTCHA_VERIFY_URL',
      "Overrides the provider's siteverify URL (tests, egress proxies). Unset: the provider's.",
      ['https:', 'http:'],
    ),
  },
  keys: {
    dht: choiceSetting(
      'KEYS_DHT',
      'The key directory that serves key bundles: `on` (a libp2p Kademlia DHT node in each api process, joined to KEYS_DHT_PEERS) or `off` (the records kept in this process only, for a single api process).',
      ['on', 'off'],
      'on',
    ),
    dhtPort: integerSetting(
      'KEYS_DHT_PORT',
      "TCP port of this process's DHT node (on HOST). 0: any free port, enough for a single node; a cluster sets the port that KEYS_DHT_PEERS names.",
      0,
      0,
      65535,
    ),
    dhtPeers: peerListSetting(
      'KEYS_DHT_PEERS',
      'The DHT nodes of the other api pods: comma-separated `host:port` (a DNS name is resolved to all its addresses every 10 s, e.g. a headless Service) or TCP multiaddrs (`/ip4/10.0.0.7/tcp/4001`). Unset: no peers (a single node).',
    ),
    dhtTimeoutMs: durationSetting(
      'KEYS_DHT_TIMEOUT',
      'How long one DHT read or write may wait for peers. A fetch that finds no valid record in time answers 503 when the store holds the bundle.',
      '2s',
    ),
  },
  relay: {
    signingKey: optionalTextSetting(
      'SENDER_CERT_SIGNING_KEY',
      'Ed25519 private key (PEM, PKCS#8) that signs sealed-sender certificates. Unset: a key created once in DATA_DIR/keys/ (one node only; a cluster must set it).',
    ),
    keyId: optionalTextSetting(
      'SENDER_CERT_KEY_ID',
      'Key id of SENDER_CERT_SIGNING_KEY in certificates and the trust root. Unset: the RFC 7638 thumbprint of its public key.',
    ),
  },
  moderation: {
    frankingSigningKey: optionalTextSetting(
      'FRANKING_SIGNING_KEY',
      'Ed25519 private key (PEM, PKCS#8) that signs message-franking tags. Unset: a key created once in DATA_DIR/keys/ (one node only; a cluster must set it).',
    ),
    frankingKeyId: optionalTextSetting(
      'FRANKING_KEY_ID',
      'Key id of FRANKING_SIGNING_KEY in tags and `GET /api/v1/moderation/franking-keys`. Unset: the RFC 7638 thumbprint of its public key.',
    ),
    frankingVerificationKeys: optionalTextSetting(
      'FRANKING_VERIFICATION_KEYS',
      'Former franking keys that still verify tags after a rotation: comma-separated `<key id>=<raw Ed25519 public key, base64>`. Unset: none.',
    ),
    newAccountAgeMs: durationSetting(
      'SPAM_NEW_ACCOUNT_AGE',
      'The spam limit (with RATE_LIMITS_ENABLED): how long an account counts as new and may write to only SPAM_STRANGER_LIMIT strangers a day before a CAPTCHA challenge.',
      '168h',
    ),
    strangerLimit: integerSetting(
      'SPAM_STRANGER_LIMIT',
      'The spam limit: strangers (users who never wrote to it) a new account may start direct chats with in 24 hours before `428 CHALLENGE_REQUIRED`; a CAPTCHA answer allows as many again.',
      20,
      1,
      10_000,
    ),
  },
  discovery: {
    hashBudget: integerSetting(
      'DISCOVERY_HASH_BUDGET',
      'Contact discovery: distinct phone hashes a user may look up that it has not looked up before, in all (the enumeration quota, kept in shared state with a floor in the store); hashes already looked up within DISCOVERY_BUDGET_WINDOW are free.',
      50_000,
      1_000,
      10_000_000,
    ),
    budgetWindowMs: durationSetting(
      'DISCOVERY_BUDGET_WINDOW',
      'How long a spent DISCOVERY_HASH_BUDGET takes to refill completely (steadily), and how long a looked-up hash stays free to look up again.',
      '720h',
    ),
  },
  location: {
    minDurationSeconds: integerSetting(
      'LOCATION_MIN_DURATION_SECONDS',
      'The shortest location-sharing session a client may ask for (duration_seconds). location.proto documents 60; lower it only for tests.',
      60,
      1,
      60,
    ),
  },
  groups: {
    maxMembers: integerSetting(
      'GROUP_MAX_MEMBERS',
      'Most members a group may have, its owner included; creating a larger group or joining a full one answers 409 CONFLICT.',
      1000,
      2,
      100_000,
    ),
    creationFaultExitAfterStep: integerSetting(
      'GROUP_CREATION_FAULT_EXIT_AFTER',
      'Fault injection, for tests only: the process exits (code 137, as kill -9) after this many steps of a group creation (1: the group record, 2: its picture held, 3: its conversation, 4: its members, 5: group_created), so that the resumption can be tested. 0: never.',
      0,
      0,
      5,
    ),
  },
  accounts: {
    recoveryHourMs: durationSetting(
      'RECOVERY_HOUR',
      "The length of an hour in social recovery's windows (the time lock of 24 to 720 hours, the 7-day approval and completion windows). Only tests shorten it, to run a recovery's life in seconds.",
      '1h',
    ),
    faultExitAfterOwner: integerSetting(
      'ACCOUNT_WALK_FAULT_EXIT_AFTER',
      'Fault injection, for tests only: the process exits (code 137, as kill -9) after this many owners of an account move or deletion, so that the resumption at the next start can be tested. 0: never.',
      0,
      0,
      100,
    ),
  },
  messaging: {
    editWindowMs: durationSetting(
      'MESSAGE_EDIT_WINDOW',
      'How long after sending a message its sender may edit it (messages.proto EditMessage); later edits answer 403 EDIT_WINDOW_PASSED.',
      '24h',
    ),
    deleteWindowMs: durationSetting(
      'MESSAGE_DELETE_WINDOW',
      'How long after sending a message its sender may delete it for everyone; group and channel owners and admins may delete any message at any time.',
      '24h',
    ),
  },
  channels: {
    maxSubscriptions: integerSetting(
      'CHANNEL_MAX_SUBSCRIPTIONS',
      'Channels one user may follow (owned, administered and subscribed together); one more is refused with 409 SUBSCRIPTION_LIMIT.',
      500,
      1,
      100_000,
    ),
    replayPosts: integerSetting(
      'CHANNEL_REPLAY_POSTS',
      'Posts kept per channel in shared state for /ws catch-up (`channels.resume`); an older gap gets `channel.resync_required`.',
      1000,
      10,
      100_000,
    ),
    replayRetentionMs: durationSetting(
      'CHANNEL_REPLAY_RETENTION',
      'How long a channel post stays replayable over /ws after it is published.',
      '24h',
    ),
  },
  push: {
    vapidSubject: stringSetting(
      'PUSH_VAPID_SUBJECT',
      'The VAPID `sub` claim (RFC 8292) that push services use to contact the operator: a `mailto:` or `https:` URL.',
      'mailto:push@localhost',
      /^(mailto:[^\s@]+@[^\s@]+|https:\/\/[^\s]+)$/,
    ),
    vapidPublicKey: optionalTextSetting(
      'PUSH_VAPID_PUBLIC_KEY',
      'VAPID public key: the 65-byte uncompressed P-256 point, base64url. Set together with PUSH_VAPID_PRIVATE_KEY. Unset: a key pair created once in DATA_DIR/keys/ (one node only; a cluster must set both).',
    ),
    vapidPrivateKey: optionalTextSetting(
      'PUSH_VAPID_PRIVATE_KEY',
      'VAPID private key: the 32-byte P-256 scalar, base64url. Set together with PUSH_VAPID_PUBLIC_KEY.',
    ),
    caFile: optionalTextSetting(
      'PUSH_CA_FILE',
      'PEM file of certificate authorities trusted for push services besides the system ones (a self-hosted push gateway, tests). Unset: the system ones only.',
    ),
    proxyUrl: optionalUrlSetting(
      'PUSH_PROXY',
      'HTTP(S) proxy through which pushes leave the cluster (egress). Unset: direct connections.',
      ['http:', 'https:'],
    ),
    timeoutMs: durationSetting(
      'PUSH_TIMEOUT',
      'How long one request to a push service may stay silent before it is abandoned and retried.',
      '10s',
    ),
    coalesceWindowMs: durationSetting(
      'PUSH_COALESCE_WINDOW',
      'At most one push per device and kind of event within this window: a burst of messages to an offline device wakes it once.',
      '10s',
    ),
  },
  media: {
    unreferencedRetentionMs: durationSetting(
      'MEDIA_UNREFERENCED_RETENTION',
      'An upload that no message, avatar or story references this long after it was stored is deleted.',
      '24h',
    ),
    sweepIntervalMs: durationSetting(
      'MEDIA_SWEEP_INTERVAL',
      'How often each api pod looks for media to delete (unreferenced past their retention, last reference ended, uploads cut off).',
      '1m',
    ),
    viewedGraceMs: durationSetting(
      'MEDIA_VIEWED_GRACE',
      "How long a view-once message's media stays downloadable after the message is opened (messages.proto: 5 minutes); then the sweeper deletes it.",
      '5m',
    ),
  },
  stickers: {
    directory: optionalTextSetting(
      'STICKERS_DIR',
      'The sticker catalog: a directory with one folder per pack (its id), each holding a `pack.json` manifest and the images. Unset: the default pack shipped in `assets/stickers`. Checked at start; a bad pack stops the start.',
    ),
  },
  webApp: {
    directory: optionalTextSetting(
      'WEB_APP_DIR',
      'The reference web app served at `/app/` (client/app, built by `npm run build`): the folder holding its built files. Unset: `dist/web-app` of this installation. A folder without the built app answers 404 at `/app/`.',
    ),
  },
  stories: {
    minTtlSeconds: integerSetting(
      'STORY_MIN_TTL_SECONDS',
      'The shortest story lifetime a client may ask for (ttl_seconds). stories.proto documents 3600; lower it only for tests.',
      3600,
      1,
      3600,
    ),
  },
  realtime: {
    heartbeatSeconds: integerSetting(
      'WS_HEARTBEAT_SECONDS',
      'A WebSocket that exchanges nothing for this long is pinged, and closed if the ping is not answered as long again (dead-connection detection); rounded up to a multiple of 4.',
      60,
      8,
      960,
    ),
    maxBufferedBytes: integerSetting(
      'WS_MAX_BUFFERED_BYTES',
      'Backpressure bound: a connection with more unsent bytes queued is a slow consumer and is closed (code 1013) so it never slows others.',
      1_048_576,
      16_384,
      64 * 1_048_576,
    ),
    replayEvents: integerSetting(
      'WS_REPLAY_EVENTS',
      'Durable events kept per user for reconnect catch-up; an older gap gets `resync_required`.',
      1000,
      10,
      100_000,
    ),
    replayRetentionMs: durationSetting(
      'WS_REPLAY_RETENTION',
      'How long durable events stay replayable after they happen.',
      '24h',
    ),
  },
};

type Settings = typeof settings;
type SectionOf<S extends Record<string, Setting<unknown>>> = {
  readonly [K in keyof S]: ReturnType<S[K]['parse']>;
};
export type Config = { readonly [S in keyof Settings]: SectionOf<Settings[S]> };

export type ProcessSettings = Config['process'];
export type HttpSettings = Config['http'];
export type TracingSettings = Config['tracing'];
export type StoreSettings = Config['store'];
export type SharedStateSettings = Config['sharedState'];
export type SessionSettings = Config['sessions'];
export type TokenSettings = Config['tokens'];
export type MfaSettings = Config['mfa'];
export type SmsSettings = Config['sms'];
export type LimitSettings = Config['limits'];
export type CaptchaSettings = Config['captcha'];
export type KeysSettings = Config['keys'];
export type WalletSettings = Config['wallets'];
export type RelaySettings = Config['relay'];
export type ModerationSettings = Config['moderation'];
export type GroupSettings = Config['groups'];
export type ChannelSettings = Config['channels'];
export type MessagingSettings = Config['messaging'];
export type PushSettings = Config['push'];
export type RealtimeSettings = Config['realtime'];
export type StickerSettings = Config['stickers'];
export type StorySettings = Config['stories'];
export type DiscoverySettings = Config['discovery'];
export type LocationSettings = Config['location'];
export type AccountsSettings = Config['accounts'];
export type MediaSettings = Config['media'];

/** Every setting in one list: the README table and the Helm chart are checked against it. */
export const allSettings: readonly Setting<unknown>[] = Object.values(settings).flatMap((section) =>
  Object.values<Setting<unknown>>(section),
);
