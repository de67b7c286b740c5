/**
 * The REST rendering the api pods attach to failed RPCs for Envoy (src/grpc/rest-error-metadata.ts):
 * the same status and envelope the in-process gateway would send, in ASCII-safe metadata.
 */
import { Code, ConnectError } from '@connectrpc/connect';
import type { UnaryRequest } from '@connectrpc/connect';
import { gone, invalidArgument, rateLimited } from '../../src/platform/errors/api-error.js';
import { renderError } from '../../src/platform/errors/http-status.js';
import {
  ERROR_ENVELOPE_HEADER,
  restErrorMetadata,
  withRestRendering,
} from '../../src/grpc/rest-error-metadata.js';

const envelopeOf = (error: ConnectError) =>
  JSON.parse(error.metadata.get(ERROR_ENVELOPE_HEADER) ?? 'null');

test.each([
  [
    '410 for a gone resource, which no gRPC code maps to',
    gone('This message was already viewed'),
    410,
  ],
  ['400 with the reason', invalidArgument('username is required', 'USERNAME_REQUIRED'), 400],
  ['429 with the per-endpoint body', rateLimited(5, 60_000, 12_000, true), 429],
])('%s', (_, error, status) => {
  const expected = renderError(error);
  const rendered = withRestRendering(error);
  expect(rendered.metadata.get('x-http-status')).toBe(String(status));
  expect(envelopeOf(rendered)).toEqual(expected.body);
  expect(expected.status).toBe(status);
});

test('the headers the envelope needs stay in the metadata', () => {
  const rendered = withRestRendering(rateLimited(5, 60_000, 12_000, true));
  expect(rendered.metadata.get('retry-after')).toBe('12');
  expect(rendered.metadata.get('x-ratelimit-limit')).toBe('5');
});

test('anything but a Connect error is an opaque internal error', () => {
  const rendered = withRestRendering(new Error('database password is hunter2'));
  expect(rendered.code).toBe(Code.Internal);
  expect(rendered.metadata.get('x-http-status')).toBe('500');
  expect(envelopeOf(rendered)).toEqual({
    success: false,
    error: 'Internal server error',
    code: 'INTERNAL',
  });
});

test('non-ASCII text is escaped so the envelope is a valid metadata value', () => {
  const rendered = withRestRendering(invalidArgument('naïve “quotes” ✓'));
  expect(rendered.metadata.get(ERROR_ENVELOPE_HEADER)).toMatch(/^[\x20-\x7e]+$/);
  expect(envelopeOf(rendered).error).toBe('naïve “quotes” ✓');
});

test('the interceptor adds the rendering to what a handler throws', async () => {
  const failing = restErrorMetadata(async () => {
    throw gone('expired');
  });
  const thrown = await failing({} as UnaryRequest).catch((error: unknown) => error);
  expect(thrown).toBeInstanceOf(ConnectError);
  expect((thrown as ConnectError).metadata.get('x-http-status')).toBe('410');
});
