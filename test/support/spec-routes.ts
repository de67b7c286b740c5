/**
 * Extracts every route the spec lists (its endpoint tables, the MFA table and the list of
 * "other routes") from the vendored copy of the spec in docs/spec/.
 */
import { readFileSync } from 'node:fs';

export interface SpecRoute {
  /** Undefined where the spec gives a path without a method (`/api/v1/stories`). */
  readonly method: string | undefined;
  readonly path: string;
}

const SPEC = new URL('../../docs/spec/messaging-api-spec.md', import.meta.url);
const METHOD = '(GET|POST|PUT|PATCH|DELETE)';

export function specRoutes(): SpecRoute[] {
  const text = readFileSync(SPEC, 'utf8');
  const routes: SpecRoute[] = [];
  // Table rows: | METHOD | /path ... |, including "(also /api/...)" aliases in the path cell.
  for (const match of text.matchAll(new RegExp(`^\\| ${METHOD} \\| ([^|]+)\\|`, 'gm'))) {
    for (const path of (match[2] as string).match(/\/[\w\-/{}]+/g) ?? [])
      routes.push({ method: match[1], path });
  }
  // The paragraph "Other routes that exist but only method and path are given ...".
  const other = /^Other routes that exist[^:]*:(.*)$/m.exec(text)?.[1] ?? '';
  for (const item of other.split(',')) {
    const match = new RegExp(`^\\s*(?:${METHOD} )?(/api/[\\w\\-/{}]+)`).exec(item);
    if (match) routes.push({ method: match[1], path: match[2] as string });
  }
  return routes;
}

/** The spec's path with variable names erased, for comparison with route templates. */
export const shapeOf = (path: string) => path.replace(/\{[^}]*\}/g, '{}');

/** Both forms of a route: `/api/v1/x` and `/api/x`; paths outside /api stay as they are. */
export function bothPrefixes(path: string): string[] {
  if (path.startsWith('/api/v1/')) return [path, `/api/${path.slice('/api/v1/'.length)}`];
  if (path.startsWith('/api/')) return [`/api/v1/${path.slice('/api/'.length)}`, path];
  return [path];
}
