/** Normalises the socket address uWebSockets.js reports (IPv4-mapped IPv6 becomes plain IPv4). */
export function normaliseAddress(text: string): string {
  const lower = text.toLowerCase();
  const mapped = /^(?:0{1,4}:){5}ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower) ?? /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (mapped) {
    const high = parseInt(mapped[1] as string, 16);
    const low = parseInt(mapped[2] as string, 16);
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  return dotted ? (dotted[1] as string) : lower;
}
