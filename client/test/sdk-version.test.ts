import { readFileSync } from 'node:fs';
import { SDK_VERSION } from '../src/index.js';

describe('SDK version', () => {
  it('is the service version: the SDK is released with the service', () => {
    const service = JSON.parse(
      readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
    ) as {
      version: string;
    };
    const client = JSON.parse(
      readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
    ) as {
      version: string;
    };
    expect(client.version).toBe(service.version);
    expect(SDK_VERSION).toBe(service.version);
  });
});
