/**
 * Version negotiation by media type: `Accept: application/vnd.service.v1+json` asks for v1.
 * Other Accept values are ordinary content negotiation and leave the path's version in charge.
 */
import { SUPPORTED_VERSIONS } from '../../platform/api/api-versions.js';

const VENDOR_TYPE = /application\/vnd\.service\.([a-z0-9-]+)\+json/i;

export type AcceptedVersion =
  | { kind: 'none' }
  | { kind: 'supported'; version: string; mediaType: string }
  | { kind: 'unsupported'; version: string };

export function acceptedVersion(accept: string | undefined): AcceptedVersion {
  const match = accept ? VENDOR_TYPE.exec(accept) : null;
  if (!match) return { kind: 'none' };
  const version = (match[1] as string).toLowerCase();
  if (!SUPPORTED_VERSIONS.includes(version)) return { kind: 'unsupported', version };
  return { kind: 'supported', version, mediaType: `application/vnd.service.${version}+json` };
}
