/**
 * The bound on one HTTP request of the test clients: longer than any answer of a healthy service
 * on a loaded machine. A process that stopped answering then fails the test that asked, with the
 * request named, instead of holding the run until jest's timeout (which says nothing of why).
 */
const REQUEST_TIMEOUT_MS = 60_000;

export const requestDeadline = (): AbortSignal => AbortSignal.timeout(REQUEST_TIMEOUT_MS);
