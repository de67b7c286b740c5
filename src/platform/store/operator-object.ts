/** `{$gt: 1, $lt: 5}` rather than a value to compare with (`{city: 'Oslo'}`, a date, a regex). */
export function isOperatorObject(value: unknown): value is Record<string, unknown> {
  if (
    typeof value !== 'object' ||
    value === null ||
    Array.isArray(value) ||
    value instanceof Date ||
    value instanceof RegExp
  )
    return false;
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every((key) => key.startsWith('$'));
}
