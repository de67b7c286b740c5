/**
 * One REST call typed by the generated protobuf-es messages: the request built from its schema
 * and printed as the service's JSON (`json_name`s, bytes in base64), the response parsed back
 * into its generated type. The transport stays REST (see client/README.md, "Transport").
 */
import { create, fromJson, toJson } from '@bufbuild/protobuf';
import type { DescMessage, MessageInitShape, MessageShape } from '@bufbuild/protobuf';
import type { ApiCaller, HttpMethod } from './api-caller.js';

export async function rpc<I extends DescMessage, O extends DescMessage>(
  api: ApiCaller,
  method: HttpMethod,
  path: string,
  request: { readonly schema: I; readonly init: MessageInitShape<I> },
  response: O,
): Promise<MessageShape<O>> {
  const body = toJson(request.schema, create(request.schema, request.init));
  return fromJson(response, await api.call(method, path, body), { ignoreUnknownFields: true });
}
