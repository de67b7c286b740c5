/**
 * A parsed JSON body, protocol frame or configuration document whose shape the test asserts.
 * It is `any` on purpose: a test reads such values freely (`body.items[0].id`) and checks them
 * with expect(), where a wrong member access fails the test; declaring a type for every response
 * would duplicate the API's schema in the tests. Production code has no such escape hatch.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above: JSON that the test asserts
export type Json = any;
