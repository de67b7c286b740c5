/**
 * The rules of docs/api-conventions.md, checked over every message of the public API, so that a
 * new RPC cannot drift from the spec's JSON style unnoticed.
 */
import type { DescField, DescMessage } from '@bufbuild/protobuf';
import { ScalarType } from '@bufbuild/protobuf';
import { apiServices } from '../../src/platform/api/api-services.js';

/** Spec members printed in camelCase (key bundle, frontend error batch). */
const CAMEL_CASE_MESSAGES = new Set([
  'service.v1.KeyBundle',
  'service.v1.SignedPreKey',
  'service.v1.OneTimePreKey',
  'service.v1.GetKeyBundleResponse',
  'service.v1.GetOwnKeysResponse',
  'service.v1.PublishKeyBundleRequest',
  'service.v1.UploadOneTimePreKeysRequest',
  'service.v1.ReportErrorsRequest',
  'service.v1.FrontendError',
]);

function apiMessages(): DescMessage[] {
  const seen = new Map<string, DescMessage>();
  const visit = (message: DescMessage) => {
    if (seen.has(message.typeName) || !message.typeName.startsWith('service.v1.')) return;
    seen.set(message.typeName, message);
    for (const field of message.fields) if (field.message) visit(field.message);
  };
  for (const service of apiServices)
    for (const method of service.methods) [method.input, method.output].forEach(visit);
  return [...seen.values()];
}

const messages = apiMessages();
const fields: [string, DescField][] = messages.flatMap((m) =>
  m.fields.map((f) => [`${m.typeName}.${f.name}`, f] as [string, DescField]),
);

it('covers the whole API', () => {
  expect(apiServices.length).toBeGreaterThanOrEqual(20);
  expect(messages.length).toBeGreaterThan(150);
});

it.each(fields)('%s has the JSON name its style requires', (_, field) => {
  if (!field.name.includes('_')) {
    expect(field.jsonName).toBe(field.name);
  } else if (CAMEL_CASE_MESSAGES.has(field.parent.typeName) && field.jsonName !== field.name) {
    expect(field.jsonName).toBe(
      field.name.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase()),
    );
  } else {
    expect(field.jsonName).toBe(field.name);
  }
});

it('never uses 64-bit integers (they print as JSON strings) or enums', () => {
  const int64 = [
    ScalarType.INT64,
    ScalarType.UINT64,
    ScalarType.SINT64,
    ScalarType.FIXED64,
    ScalarType.SFIXED64,
  ];
  const offenders = fields.filter(
    ([, f]) =>
      (f.scalar !== undefined && int64.includes(f.scalar)) ||
      f.fieldKind === 'enum' ||
      (f.fieldKind === 'list' && f.listKind === 'enum'),
  );
  expect(offenders.map(([name]) => name)).toEqual([]);
});

it('every response starts with the success envelope, without presence', () => {
  for (const service of apiServices) {
    for (const method of service.methods) {
      if (method.output.typeName === 'google.api.HttpBody') continue;
      const [success, message] = method.output.fields;
      expect([
        method.output.typeName,
        success?.name,
        success?.number,
        success?.scalar,
        success?.presence,
      ]).toEqual([method.output.typeName, 'success', 1, ScalarType.BOOL, 2]);
      expect([method.output.typeName, message?.name, message?.number, message?.scalar]).toEqual([
        method.output.typeName,
        'message',
        2,
        ScalarType.STRING,
      ]);
    }
  }
});
