/**
 * The one way an end-to-end test file gets its service: `serviceForThisFile` starts it before the
 * file's (or the enclosing describe's) tests and stops it after; `serviceForEachTest` gives each
 * test a fresh one. Both return the service and a REST client of it at once, usable inside tests
 * and hooks: they stand for the service that is running at that moment.
 *
 *   const { service, api } = serviceForThisFile({ SERVICE_POW_DIFFICULTY_BITS: '8' });
 *
 * The settings may be a function, read at the start (e.g. the URL of a fake provider started
 * by an earlier hook).
 * By default the service runs in this process (start-service.ts); `start: startChildService`
 * runs it as a child process (a pod of a cluster).
 */
import { Api } from './session-api.js';
import { startTestService } from './start-service.js';
import type { TestService } from './start-service.js';

type Env = Record<string, string> | (() => Record<string, string>);

export interface StartedService {
  readonly baseUrl: string;
  stop(): Promise<unknown>;
}

export interface ServiceOptions<S extends StartedService> {
  /** How to start it; default: in this process. */
  readonly start?: (env: Record<string, string>) => Promise<S>;
  /**
   * Runs before the start and returns the DATA_DIR to start on (e.g. data made by an earlier
   * run and an operator command); the in-process service removes it when it stops.
   */
  readonly prepareDataDir?: () => Promise<string>;
}

export interface ServiceUnderTest<S extends StartedService> {
  readonly service: S;
  readonly api: Api;
}

export function serviceForThisFile(
  env?: Env,
  options?: ServiceOptions<TestService>,
): ServiceUnderTest<TestService>;
export function serviceForThisFile<S extends StartedService>(
  env: Env,
  options: ServiceOptions<S> & { start: (env: Record<string, string>) => Promise<S> },
): ServiceUnderTest<S>;
export function serviceForThisFile(
  env: Env = {},
  options: ServiceOptions<StartedService> = {},
): ServiceUnderTest<StartedService> {
  return hookedService(beforeAll, afterAll, env, options);
}

export function serviceForEachTest(
  env?: Env,
  options?: ServiceOptions<TestService>,
): ServiceUnderTest<TestService>;
export function serviceForEachTest<S extends StartedService>(
  env: Env,
  options: ServiceOptions<S> & { start: (env: Record<string, string>) => Promise<S> },
): ServiceUnderTest<S>;
export function serviceForEachTest(
  env: Env = {},
  options: ServiceOptions<StartedService> = {},
): ServiceUnderTest<StartedService> {
  return hookedService(beforeEach, afterEach, env, options);
}

type Hook = (run: () => Promise<unknown>) => void;

function hookedService(
  before: Hook,
  after: Hook,
  env: Env,
  options: ServiceOptions<StartedService>,
): ServiceUnderTest<StartedService> {
  let running: StartedService | undefined;
  const current = (): StartedService => {
    if (!running)
      throw new Error(
        'the service runs from its beforeAll/beforeEach hook on: use it inside tests and hooks',
      );
    return running;
  };
  before(async () => {
    const settings = typeof env === 'function' ? env() : env;
    if (options.start) {
      running = await options.start(settings);
    } else {
      const dataDir = await options.prepareDataDir?.();
      running = await startTestService(settings, dataDir === undefined ? {} : { dataDir });
    }
  });
  after(async () => {
    const stopping = running;
    running = undefined;
    await stopping?.stop();
  });
  // Reads go to the service running at the time of the read.
  const service = new Proxy({} as StartedService, {
    get(_target, key) {
      const target = current();
      const value: unknown = Reflect.get(target, key);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { service, api: new Api(() => service.baseUrl) };
}
