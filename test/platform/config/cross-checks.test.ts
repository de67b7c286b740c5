/** Settings that are only valid together are refused once, when the configuration loads, naming the missing one. */
import { loadConfig } from '../../../src/platform/config/load-config.js';
import { ConfigError } from '../../../src/platform/config/setting.js';

const TWILIO = {
  SMS_PROVIDER: 'twilio',
  TWILIO_ACCOUNT_SID: 'AC1',
  TWILIO_AUTH_TOKEN: 'token',
  SMS_FROM: '+15559990000',
};

describe('cross-setting checks', () => {
  it.each(['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN', 'SMS_FROM'])(
    'SMS_PROVIDER=twilio without %s stops the start',
    (missing) => {
      const env: Record<string, string> = { ...TWILIO };
      delete env[missing];
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(`${missing} is required when SMS_PROVIDER is twilio`);
    },
  );

  it('SMS_PROVIDER=twilio with its credentials loads, and the outbox needs none', () => {
    expect(loadConfig(TWILIO).sms).toMatchObject({
      provider: 'twilio',
      twilioAccountSid: 'AC1',
      from: '+15559990000',
    });
    expect(loadConfig({}).sms.provider).toBe('outbox');
  });

  it.each(['turnstile', 'hcaptcha'])('CAPTCHA_PROVIDER=%s needs CAPTCHA_SECRET', (provider) => {
    expect(() => loadConfig({ CAPTCHA_PROVIDER: provider })).toThrow(
      `CAPTCHA_SECRET is required when CAPTCHA_PROVIDER is ${provider}`,
    );
    expect(loadConfig({ CAPTCHA_PROVIDER: provider, CAPTCHA_SECRET: 's' }).captcha).toMatchObject({
      provider,
      secret: 's',
    });
  });

  it('ROLE=api needs MONGODB_URL unless ALLOW_EMBEDDED_STORE=true; ROLE=all never does', () => {
    expect(() => loadConfig({ ROLE: 'api' })).toThrow(ConfigError);
    expect(() => loadConfig({ ROLE: 'api' })).toThrow('MONGODB_URL is required with ROLE=api');
    expect(loadConfig({ ROLE: 'api', ALLOW_EMBEDDED_STORE: 'true' }).store).toMatchObject({
      mongodbUrl: undefined,
      allowEmbeddedStore: true,
    });
    expect(
      loadConfig({ ROLE: 'api', MONGODB_URL: 'mongodb://db:27017/svc' }).store.mongodbUrl,
    ).toBe('mongodb://db:27017/svc');
    expect(loadConfig({}).store).toMatchObject({
      mongodbUrl: undefined,
      allowEmbeddedStore: false,
      mongodbAllowStandalone: false,
    });
  });

  it('PUSH_VAPID_PUBLIC_KEY and PUSH_VAPID_PRIVATE_KEY come together or not at all', () => {
    expect(() => loadConfig({ PUSH_VAPID_PUBLIC_KEY: 'BPub' })).toThrow(
      'PUSH_VAPID_PRIVATE_KEY must be set together with its other half',
    );
    expect(() => loadConfig({ PUSH_VAPID_PRIVATE_KEY: 'priv' })).toThrow(
      'PUSH_VAPID_PUBLIC_KEY must be set together with its other half',
    );
    expect(
      loadConfig({ PUSH_VAPID_PUBLIC_KEY: 'BPub', PUSH_VAPID_PRIVATE_KEY: 'priv' }).push,
    ).toMatchObject({ vapidPublicKey: 'BPub', vapidPrivateKey: 'priv' });
    expect(loadConfig({}).push).toMatchObject({
      vapidPublicKey: undefined,
      vapidPrivateKey: undefined,
      vapidSubject: 'mailto:push@localhost',
    });
  });

  it('ETH_RPC_URLS, when set, includes ETH_DEFAULT_CHAIN_ID; both and SIWE_DOMAINS are parsed at load', () => {
    expect(() => loadConfig({ ETH_RPC_URLS: '8453=https://base.example' })).toThrow(
      'ETH_RPC_URLS must include ETH_DEFAULT_CHAIN_ID (1) when it is set',
    );
    const wallets = loadConfig({
      ETH_RPC_URLS: '1=https://eth.example/rpc, 8453=http://10.0.0.5:8545',
      SIWE_DOMAINS: 'app.example.com,app.example.com:8443',
    }).wallets;
    expect([...wallets.rpcUrls]).toEqual([
      [1, 'https://eth.example/rpc'],
      [8453, 'http://10.0.0.5:8545'],
    ]);
    expect(wallets.siweDomains).toEqual(['app.example.com', 'app.example.com:8443']);
    expect(loadConfig({}).wallets).toMatchObject({
      defaultChainId: 1,
      rpcTimeoutMs: 3000,
      siweDomains: ['localhost:8080', 'localhost'],
    });
    expect(loadConfig({}).wallets.rpcUrls.size).toBe(0);
    const refused: [Record<string, string>, string][] = [
      [{ ETH_RPC_URLS: 'mainnet=https://eth.example' }, 'ETH_RPC_URLS must list'],
      [{ ETH_RPC_URLS: '1=ftp://eth.example' }, 'is not an http(s) URL'],
      [{ ETH_RPC_URLS: '1=https://a.example,1=https://b.example' }, 'names chain 1 twice'],
      [{ ETH_RPC_URLS: '0=https://eth.example' }, 'is not a chain id'],
      [{ SIWE_DOMAINS: 'https://app.example.com' }, 'SIWE_DOMAINS must list'],
      [{ SIWE_DOMAINS: 'app.example.com,' }, 'SIWE_DOMAINS must list'],
      [{ ETH_DEFAULT_CHAIN_ID: '0' }, 'ETH_DEFAULT_CHAIN_ID'],
    ];
    for (const [env, problem] of refused) expect(() => loadConfig(env)).toThrow(problem);
  });

  it('RATE_LIMIT_OVERRIDES is checked against the API when the configuration loads', () => {
    expect(() => loadConfig({ RATE_LIMIT_OVERRIDES: '{"NoSuch.Rpc": {"limit": 1}}' })).toThrow(
      'RATE_LIMIT_OVERRIDES has an unknown key "NoSuch.Rpc"',
    );
    const overrides = loadConfig({
      RATE_LIMIT_OVERRIDES: '{"AuthService.Initialize": {"burst": 3, "window_seconds": 30}}',
    }).limits.overrides;
    expect(overrides.get('AuthService.Initialize')).toEqual({ burst: 3, windowMs: 30_000 });
  });
});

it('each section holds only its own settings', () => {
  const config = loadConfig({});
  expect(Object.keys(config).sort()).toEqual(
    [
      'accounts',
      'captcha',
      'channels',
      'discovery',
      'groups',
      'http',
      'keys',
      'limits',
      'location',
      'media',
      'messaging',
      'mfa',
      'moderation',
      'phone',
      'process',
      'push',
      'realtime',
      'registration',
      'relay',
      'service',
      'sessions',
      'sharedState',
      'signIn',
      'sms',
      'stickers',
      'store',
      'stories',
      'tokens',
      'tracing',
      'wallets',
      'webApp',
    ].sort(),
  );
  expect(Object.keys(config.tokens).sort()).toEqual([
    'issuer',
    'signingKey',
    'signingKeyId',
    'verificationKeys',
  ]);
  expect(Object.isFrozen(config) && Object.isFrozen(config.http)).toBe(true);
});

it('OTEL_TRACES_SAMPLER_ARG is a fraction from 0 to 1', () => {
  expect(loadConfig({ OTEL_TRACES_SAMPLER_ARG: '0.25' }).tracing.samplerRatio).toBe(0.25);
  expect(loadConfig({ OTEL_TRACES_SAMPLER_ARG: '1' }).tracing.samplerRatio).toBe(1);
  for (const bad of ['1.5', '-0.1', 'half', '1e-2'])
    expect(() => loadConfig({ OTEL_TRACES_SAMPLER_ARG: bad })).toThrow(/OTEL_TRACES_SAMPLER_ARG/);
});
