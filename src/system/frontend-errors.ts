/**
 * POST /errors: the frontend error intake. Each accepted error becomes one structured log line
 * (strings truncated, never trusted) and one sample of `frontend_errors_total`, whose labels
 * are drawn from fixed sets so that clients cannot inflate the metric's cardinality.
 */
import type { HandlerContext } from '@connectrpc/connect';
import { Counter } from 'prom-client';
import type { Registry } from 'prom-client';
import type { FrontendError, ReportErrorsRequest } from '../gen/service/v1/system_pb.js';
import { invalidArgument } from '../platform/errors/api-error.js';
import { callInfoOf } from '../platform/rpc/call-context.js';

export type FrontendErrorCounter = Counter<'environment' | 'error_type'>;

export const MAX_ERRORS_PER_BATCH = 50;
const MAX_LOGGED_STRING = 8 * 1024;
const MAX_ADDITIONAL_INFO = 16 * 1024;
const ENVIRONMENTS = new Set(['production', 'staging', 'development', 'test']);
const ERROR_TYPES = new Set([
  'Error',
  'TypeError',
  'RangeError',
  'ReferenceError',
  'SyntaxError',
  'URIError',
  'EvalError',
  'AggregateError',
  'AbortError',
  'NetworkError',
  'ChunkLoadError',
  'SecurityError',
  'UnhandledRejection',
]);

/** `frontend_errors_total`, registered by this area on the process's registry. */
export function createFrontendErrorCounter(registry: Registry): FrontendErrorCounter {
  return new Counter({
    name: 'frontend_errors_total',
    help: 'Errors reported by frontends through POST /errors.',
    labelNames: ['environment', 'error_type'],
    registers: [registry],
  });
}

export function reportErrors(frontendErrors: FrontendErrorCounter) {
  return (request: ReportErrorsRequest, context: HandlerContext) => {
    validateBatch(request);
    const { logger } = callInfoOf(context);
    for (const error of request.errors) {
      logger.warn(
        { frontendError: loggable(error), batchTimestamp: request.batchTimestamp },
        'frontend error',
      );
      frontendErrors.inc({
        environment: ENVIRONMENTS.has(error.environment) ? error.environment : 'other',
        error_type: ERROR_TYPES.has(error.errorType) ? error.errorType : 'other',
      });
    }
    return { success: true, message: 'Errors recorded', accepted: request.errors.length };
  };
}

function validateBatch(request: ReportErrorsRequest): void {
  if (request.errors.length === 0) throw invalidArgument('errors must contain at least one error');
  if (request.errors.length > MAX_ERRORS_PER_BATCH) {
    throw invalidArgument(`errors may contain at most ${MAX_ERRORS_PER_BATCH} errors`);
  }
  request.errors.forEach((error, index) => {
    if (error.message.trim() === '') throw invalidArgument(`errors[${index}].message is required`);
    if (error.additionalInfo && additionalInfoSize(error) > MAX_ADDITIONAL_INFO) {
      throw invalidArgument(`errors[${index}].additionalInfo exceeds ${MAX_ADDITIONAL_INFO} bytes`);
    }
  });
}

function additionalInfoSize(error: FrontendError): number {
  return Buffer.byteLength(JSON.stringify(error.additionalInfo));
}

function loggable(error: FrontendError) {
  const cut = (text: string) =>
    text.length > MAX_LOGGED_STRING ? `${text.slice(0, MAX_LOGGED_STRING)}…` : text;
  return {
    message: cut(error.message),
    errorType: cut(error.errorType),
    stack: cut(error.stack),
    componentStack: cut(error.componentStack),
    environment: cut(error.environment),
    url: cut(error.url),
    userAddress: cut(error.userAddress),
    userAgent: cut(error.userAgent),
    timestamp: error.timestamp,
    additionalInfo: error.additionalInfo,
  };
}
