/**
 * Matches request paths against the route table. Routes are kept in a segment trie, so a
 * lookup costs one map probe per path segment, whatever the number of routes. A literal
 * segment wins over a variable at the same position (`/groups/create` before
 * `/groups/{group_id}`), with backtracking when the literal branch leads nowhere.
 */
import type { HttpMethod, HttpRoute } from './route-table.js';

export type RouteMatch =
  | { kind: 'found'; route: HttpRoute; variables: Map<string, string> }
  /** The path exists but not for this method; `allowed` lists the methods that do. */
  | { kind: 'method-not-allowed'; allowed: HttpMethod[] }
  | { kind: 'not-found' };

interface Node {
  literals: Map<string, Node>;
  /** Child for a single-segment variable or `*`. */
  single?: { node: Node; fieldPath?: string };
  /** Terminal `**` (variable or wildcard): matches the rest of the path. */
  rest?: { routes: Map<HttpMethod, HttpRoute>; fieldPath?: string };
  routes: Map<HttpMethod, HttpRoute>;
}

const newNode = (): Node => ({ literals: new Map(), routes: new Map() });

export class Router {
  private readonly root = newNode();

  constructor(routes: readonly HttpRoute[]) {
    for (const route of routes) this.add(route);
  }

  private add(route: HttpRoute): void {
    let node = this.root;
    for (const segment of route.segments) {
      if (segment.kind === 'literal') {
        let next = node.literals.get(segment.value);
        if (!next) node.literals.set(segment.value, (next = newNode()));
        node = next;
        continue;
      }
      const fieldPath = segment.kind === 'variable' ? segment.fieldPath : undefined;
      if (segment.multi) {
        node.rest ??= { routes: new Map(), fieldPath };
        node.rest.routes.set(route.httpMethod, route);
        return;
      }
      node.single ??= { node: newNode(), fieldPath };
      node = node.single.node;
    }
    node.routes.set(route.httpMethod, route);
  }

  /** `path` is the raw URL path (percent-encoded, without the query string). */
  match(httpMethod: string, path: string): RouteMatch {
    const segments = path.split('/').slice(1);
    // A trailing slash is a different resource in REST; we treat `/a/` as not found.
    const variables: [string, string][] = [];
    const methods = this.walk(this.root, segments, 0, variables);
    if (!methods) return { kind: 'not-found' };
    const route = methods.routes.get(httpMethod as HttpMethod);
    if (!route) return { kind: 'method-not-allowed', allowed: [...methods.routes.keys()] };
    const decoded = new Map<string, string>();
    for (const [name, raw] of methods.variables) {
      const value = safeDecode(raw);
      if (value === undefined) return { kind: 'not-found' };
      decoded.set(name, value);
    }
    return { kind: 'found', route, variables: decoded };
  }

  private walk(
    node: Node,
    segments: readonly string[],
    index: number,
    variables: [string, string][],
  ): { routes: Map<HttpMethod, HttpRoute>; variables: [string, string][] } | undefined {
    if (index === segments.length) {
      return node.routes.size > 0 ? { routes: node.routes, variables } : undefined;
    }
    const segment = segments[index] as string;
    if (segment === '') return undefined;
    const literal = node.literals.get(segment);
    if (literal) {
      const found = this.walk(literal, segments, index + 1, variables);
      if (found) return found;
    }
    if (node.single) {
      const bound = node.single.fieldPath
        ? [...variables, [node.single.fieldPath, segment] as [string, string]]
        : variables;
      const found = this.walk(node.single.node, segments, index + 1, bound);
      if (found) return found;
    }
    if (node.rest) {
      const remainder = segments.slice(index).join('/');
      const bound = node.rest.fieldPath
        ? [...variables, [node.rest.fieldPath, remainder] as [string, string]]
        : variables;
      return { routes: node.rest.routes, variables: bound };
    }
    return undefined;
  }
}

function safeDecode(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}
