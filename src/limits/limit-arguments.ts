/** Limit parameters are checked before any round trip, so that memory and Redis refuse them alike. */
export function assertPositiveIntegers(values: Record<string, number>): void {
  for (const [name, value] of Object.entries(values)) {
    if (!Number.isSafeInteger(value) || value <= 0)
      throw new RangeError(`${name} must be a positive integer, got ${value}`);
  }
}
