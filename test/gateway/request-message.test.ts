/**
 * Transcoding of REST input into request messages: body, path variables and query parameters,
 * converted to each field's type, and every kind of bad input refused with INVALID_ARGUMENT.
 * The transcoder is schema-agnostic, so descriptor.proto's messages serve for field kinds the
 * API's GET routes do not use yet (bools, repeated scalars, nested messages).
 */
import type { DescMessage } from '@bufbuild/protobuf';
import { FieldDescriptorProtoSchema, FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { Code, ConnectError } from '@connectrpc/connect';
import { ListMessagesRequestSchema } from '../../src/gen/service/v1/messages_pb.js';
import { ApproveRecoveryRequestSchema } from '../../src/gen/service/v1/recovery_pb.js';
import type { HttpRoute } from '../../src/gateway/routing/route-table.js';
import { requestMessage } from '../../src/gateway/transcoding/request-message.js';

const route = (input: DescMessage, body: '*' | '') =>
  ({ method: { input }, body }) as unknown as HttpRoute;
const input = (query = '', variables: Record<string, string> = {}, body?: unknown) => ({
  query: new URLSearchParams(query),
  variables: new Map(Object.entries(variables)),
  body: body as never,
});

function refusal(run: () => unknown): ConnectError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConnectError) return error;
  }
  throw new Error('expected a ConnectError');
}

describe('query parameters', () => {
  const get = route(ListMessagesRequestSchema, '');

  it('fill fields by JSON or proto name, converting numbers', () => {
    const message = requestMessage(get, input('peer_address=0xabc&page_size=25&before_cursor=c1'));
    expect(message).toMatchObject({ peerAddress: '0xabc', pageSize: 25, beforeCursor: 'c1' });
  });

  it('ignore unknown parameters, as Envoy is configured to', () => {
    expect(requestMessage(get, input('utm_source=x&page_size=3'))).toMatchObject({ pageSize: 3 });
  });

  it('refuse values of the wrong type', () => {
    const error = refusal(() => requestMessage(get, input('page_size=lots')));
    expect(error.code).toBe(Code.InvalidArgument);
    expect(error.rawMessage).toMatch(/^Invalid request: /);
  });

  it('convert booleans, repeated values and dotted nested fields', () => {
    const field = requestMessage(
      route(FieldDescriptorProtoSchema, ''),
      input('proto3_optional=true&number=7&options.deprecated=true'),
    );
    expect(field).toMatchObject({ proto3Optional: true, number: 7, options: { deprecated: true } });
    const file = requestMessage(
      route(FileDescriptorProtoSchema, ''),
      input('dependency=a.proto&dependency=b.proto&public_dependency=1'),
    );
    expect(file).toMatchObject({ dependency: ['a.proto', 'b.proto'], publicDependency: [1] });
    expect(
      refusal(() =>
        requestMessage(route(FieldDescriptorProtoSchema, ''), input('proto3_optional=yes')),
      ).code,
    ).toBe(Code.InvalidArgument);
  });

  it('never override a path variable', () => {
    const message = requestMessage(get, input('peer_address=0xquery', { peer_address: '0xpath' }));
    expect(message).toMatchObject({ peerAddress: '0xpath' });
  });
});

describe('bodies', () => {
  const post = route(ApproveRecoveryRequestSchema, '*');

  it('take the body and let path variables win over body members', () => {
    const message = requestMessage(
      post,
      input('', { request_id: 'r-path' }, { request_id: 'r-body', message: 'm', signature: '0x1' }),
    );
    expect(message).toMatchObject({ requestId: 'r-path', message: 'm', signature: '0x1' });
  });

  it('accept both the JSON name and the proto name of a member', () => {
    const fieldPost = route(FieldDescriptorProtoSchema, '*');
    expect(requestMessage(fieldPost, input('', {}, { proto3Optional: true }))).toMatchObject({
      proto3Optional: true,
    });
    expect(requestMessage(fieldPost, input('', {}, { proto3_optional: true }))).toMatchObject({
      proto3Optional: true,
    });
    // The spec's snake_case members have no camelCase spelling.
    expect(refusal(() => requestMessage(post, input('', {}, { requestId: 'r1' }))).code).toBe(
      Code.InvalidArgument,
    );
  });

  it('ignore the query string when the body is the whole request', () => {
    expect(
      requestMessage(post, input('message=from-query', {}, { message: 'from-body' })),
    ).toMatchObject({ message: 'from-body' });
  });

  it.each([
    ['an array', [1]],
    ['a string', 'text'],
    ['null', null],
    ['an unknown member', { nope: 1 }],
    ['a mistyped member', { message: 42 }],
  ])('refuse %s', (_, body) => {
    expect(refusal(() => requestMessage(post, input('', {}, body))).code).toBe(
      Code.InvalidArgument,
    );
  });
});
