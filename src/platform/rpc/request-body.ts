/**
 * The exact bytes of a REST request's body, for checks that must see what the client sent
 * rather than the transcoded message (the `X-Signature` body hash). Other transports leave it
 * unset: their body is the request message's protobuf encoding.
 */
import { createContextKey } from '@connectrpc/connect';

export const requestBodyKey = createContextKey<Uint8Array | undefined>(undefined, { description: 'the raw REST request body' });
