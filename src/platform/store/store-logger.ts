/** The part of a pino logger the store uses (pino's Logger satisfies it). */
export interface StoreLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}
