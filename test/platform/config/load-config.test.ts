import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { loadConfig } from '../../../src/platform/config/load-config.js';
import { ConfigError } from '../../../src/platform/config/setting.js';
import { allSettings } from '../../../src/platform/config/settings.js';

describe('loadConfig', () => {
  it('runs on embedded defaults with an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      process: { role: 'all' },
      http: { port: 8080, grpcPort: 8081 },
      store: { dataDir: './data', mongodbUrl: undefined },
      sharedState: { redisUrl: undefined },
    });
    expect(config.http.legacySunset.toISOString()).toBe('2027-06-30T00:00:00.000Z');
  });

  it('sizes SIGNATURE_WORKERS by the available parallelism unless set; 0 keeps recovery on the main thread', () => {
    expect(loadConfig({}).signIn.signatureWorkers).toBe(availableParallelism());
    expect(loadConfig({ SIGNATURE_WORKERS: '' }).signIn.signatureWorkers).toBe(
      availableParallelism(),
    );
    expect(loadConfig({ SIGNATURE_WORKERS: '0' }).signIn.signatureWorkers).toBe(0);
    expect(loadConfig({ SIGNATURE_WORKERS: '3' }).signIn.signatureWorkers).toBe(3);
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT must be a whole number'],
    [{ PORT: '70000' }, 'PORT must be between 0 and 65535'],
    [{ ROLE: 'worker' }, 'ROLE must be one of all, api, ws'],
    [{ MONGODB_URL: 'http://db' }, 'MONGODB_URL is not a MongoDB connection string'],
    [
      { MONGODB_URL: 'mongodb://h1:27017,h2:27017/?replicaSet=rs0' },
      'MONGODB_URL names no database',
    ],
    [{ MONGODB_URL: 'mongodb://h1:27017' }, 'MONGODB_URL names no database'],
    [{ ROLE: 'api' }, 'MONGODB_URL is required with ROLE=api'],
    [{ REDIS_URL: 'not a url' }, 'REDIS_URL is not a valid URL'],
    [{ API_LEGACY_SUNSET: '30/06/2027' }, 'API_LEGACY_SUNSET must be a date'],
    [{ REDIS_KEY_PREFIX: 'has spaces' }, 'REDIS_KEY_PREFIX has an invalid value'],
    [
      { CAPTCHA_PROVIDER: 'hcaptcha' },
      'CAPTCHA_SECRET is required when CAPTCHA_PROVIDER is hcaptcha',
    ],
    [{ TRUSTED_PROXIES: '10.0.0.0/33' }, 'TRUSTED_PROXIES must be a comma-separated list of CIDRs'],
    [{ KEYS_DHT: 'maybe' }, 'KEYS_DHT must be one of on, off'],
    [{ KEYS_DHT_PEERS: 'peers.example' }, 'KEYS_DHT_PEERS must list host:port or TCP multiaddrs'],
    [{ KEYS_DHT_PEERS: 'peers.example:0' }, 'KEYS_DHT_PEERS must list host:port or TCP multiaddrs'],
    [
      { KEYS_DHT_PEERS: '/ip4/10.0.0.7/udp/4001' },
      'KEYS_DHT_PEERS must list host:port or TCP multiaddrs',
    ],
    [{ SIGNATURE_WORKERS: 'two' }, 'SIGNATURE_WORKERS must be a whole number'],
    [{ SIGNATURE_WORKERS: '65' }, 'SIGNATURE_WORKERS must be between 0 and 64'],
  ])('refuses %j naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  // Every self-hosted replica set is reached by a multi-host URL, which `new URL()` refuses.
  it.each([
    'mongodb://h1:27017,h2:27017,h3:27017/messaging?replicaSet=rs0',
    'mongodb://user:p%40ss@db-0.db:27017,db-1.db:27017/messaging?replicaSet=rs0&tls=true&authSource=admin',
    'mongodb+srv://user:pass@cluster0.example.net/messaging?retryWrites=true&w=majority',
  ])('accepts the MongoDB connection string %s', (url) => {
    expect(loadConfig({ MONGODB_URL: url }).store.mongodbUrl).toBe(url);
  });

  it('never repeats the URL (and its password) in the refusal', () => {
    expect(() => loadConfig({ MONGODB_URL: 'mongodb://user:secret-pw@h1:27017' })).not.toThrow(
      /secret-pw/,
    );
  });

  it('runs ROLE=api on the embedded store only when told to', () => {
    expect(loadConfig({ ROLE: 'api', ALLOW_EMBEDDED_STORE: 'true' })).toMatchObject({
      process: { role: 'api' },
      store: { mongodbUrl: undefined },
    });
    expect(
      loadConfig({ ROLE: 'api', MONGODB_URL: 'mongodb://db:27017/svc' }).store.mongodbUrl,
    ).toBe('mongodb://db:27017/svc');
  });

  it('reads the DHT peers as DNS names, IP literals and multiaddrs', () => {
    const { keys } = loadConfig({
      KEYS_DHT_PEERS:
        'messaging-api-peers.default.svc.cluster.local:4001, 10.0.0.7:4001,[fd00::7]:4001,/ip4/10.0.0.8/tcp/4001',
    });
    expect(keys.dhtPeers).toEqual([
      { kind: 'host', host: 'messaging-api-peers.default.svc.cluster.local', port: 4001 },
      { kind: 'host', host: '10.0.0.7', port: 4001 },
      { kind: 'host', host: 'fd00::7', port: 4001 },
      { kind: 'multiaddr', multiaddr: '/ip4/10.0.0.8/tcp/4001' },
    ]);
    expect(loadConfig({}).keys).toEqual({
      dht: 'on',
      dhtPort: 0,
      dhtPeers: [],
      dhtTimeoutMs: 2000,
    });
  });

  it('accepts valid overrides', () => {
    const config = loadConfig({
      ROLE: 'ws',
      PORT: '9000',
      REDIS_URL: 'redis://127.0.0.1:6379',
      MONGODB_URL: 'mongodb://db:27017/svc',
    });
    expect(config).toMatchObject({
      process: { role: 'ws' },
      http: { port: 9000 },
      sharedState: { redisUrl: 'redis://127.0.0.1:6379' },
      store: { mongodbUrl: 'mongodb://db:27017/svc' },
    });
  });
});

it('the README documents every setting with its default', () => {
  const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
  for (const setting of allSettings) {
    const defaultCell = setting.defaultText === undefined ? 'unset' : `\`${setting.defaultText}\``;
    expect(readme).toContain(`| \`${setting.env}\` | ${defaultCell} |`);
  }
});
