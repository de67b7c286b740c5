/**
 * Formats the binary socket address uWebSockets.js reports (4 or 16 bytes). Reading it as
 * binary and formatting here is markedly cheaper than uWS's text variant, and it is needed on
 * every request. IPv4-mapped IPv6 addresses become plain IPv4, so one client has one spelling.
 */
export function formatAddress(address: ArrayBuffer): string {
  const bytes = new Uint8Array(address);
  if (bytes.length === 4) return `${bytes[0]}.${bytes[1]}.${bytes[2]}.${bytes[3]}`;
  if (bytes.length !== 16) return 'unknown';
  if (isIpv4Mapped(bytes)) return `${bytes[12]}.${bytes[13]}.${bytes[14]}.${bytes[15]}`;
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2)
    groups.push((((bytes[i] as number) << 8) | (bytes[i + 1] as number)).toString(16));
  return compressZeros(groups);
}

function isIpv4Mapped(bytes: Uint8Array): boolean {
  for (let i = 0; i < 10; i++) if (bytes[i] !== 0) return false;
  return bytes[10] === 0xff && bytes[11] === 0xff;
}

/** RFC 5952: the longest run of two or more zero groups becomes `::`. */
function compressZeros(groups: string[]): string {
  let bestStart = -1;
  let bestLength = 1;
  for (let start = 0; start < groups.length;) {
    let end = start;
    while (end < groups.length && groups[end] === '0') end++;
    if (end - start > bestLength) {
      bestStart = start;
      bestLength = end - start;
    }
    start = end === start ? start + 1 : end;
  }
  if (bestStart === -1) return groups.join(':');
  return `${groups.slice(0, bestStart).join(':')}::${groups.slice(bestStart + bestLength).join(':')}`;
}
