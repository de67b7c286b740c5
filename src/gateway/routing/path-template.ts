/**
 * Parser for google.api.http path templates (https://google.aip.dev/127):
 *
 *   Template = "/" Segments ;  Segment = "*" | "**" | LITERAL | Variable ;
 *   Variable = "{" FieldPath [ "=" Segments ] "}" ;
 *
 * Custom verbs (":verb") are not used by this API and are refused at start-up rather than
 * silently mis-routed.
 */

/** One parsed segment of a path template. */
export type TemplateSegment =
  | { kind: 'literal'; value: string }
  /** Binds one or more URL segments to a request field (a dotted field path). */
  | { kind: 'variable'; fieldPath: string; multi: boolean }
  /** A `*` or `**` outside a variable: matched but not bound. */
  | { kind: 'wildcard'; multi: boolean };

export class PathTemplateError extends Error {}

export function parsePathTemplate(template: string): TemplateSegment[] {
  if (!template.startsWith('/'))
    throw new PathTemplateError(`template must start with "/": ${template}`);
  if (template.length > 1 && template.endsWith('/')) {
    throw new PathTemplateError(`template must not end with "/": ${template}`);
  }
  if (template.includes(':'))
    throw new PathTemplateError(`custom verbs are not supported: ${template}`);
  const segments: TemplateSegment[] = [];
  for (const raw of splitOutsideBraces(template.slice(1))) {
    segments.push(...parseSegment(raw, template));
  }
  const multiAt = segments.findIndex((s) => s.kind !== 'literal' && s.multi);
  if (multiAt !== -1 && multiAt !== segments.length - 1) {
    throw new PathTemplateError(`"**" is only allowed in the last segment: ${template}`);
  }
  return segments;
}

function parseSegment(raw: string, template: string): TemplateSegment[] {
  if (raw === '') throw new PathTemplateError(`empty segment in ${template}`);
  if (raw === '*' || raw === '**') return [{ kind: 'wildcard', multi: raw === '**' }];
  if (!raw.startsWith('{')) {
    if (/[{}*]/.test(raw)) throw new PathTemplateError(`bad literal "${raw}" in ${template}`);
    return [{ kind: 'literal', value: raw }];
  }
  if (!raw.endsWith('}')) throw new PathTemplateError(`unclosed variable "${raw}" in ${template}`);
  const [fieldPath = '', pattern = '*'] = raw.slice(1, -1).split('=');
  if (!/^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)*$/.test(fieldPath)) {
    throw new PathTemplateError(`bad variable name "${fieldPath}" in ${template}`);
  }
  // Only whole-segment patterns are bound: `{name=*}` (one segment) or `{name=**}` (the rest).
  if (pattern !== '*' && pattern !== '**') {
    throw new PathTemplateError(
      `variable patterns other than * and ** are not supported: ${template}`,
    );
  }
  return [{ kind: 'variable', fieldPath, multi: pattern === '**' }];
}

function splitOutsideBraces(path: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of path) {
    if (char === '{') depth++;
    if (char === '}') depth--;
    if (char === '/' && depth === 0) {
      parts.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  parts.push(current);
  return parts;
}

/** The template with variable names erased (`/api/v1/keys/{}`), for comparing route sets. */
export function templateShape(segments: readonly TemplateSegment[]): string {
  return (
    '/' +
    segments
      .map((s) =>
        s.kind === 'literal' ? s.value : s.kind === 'variable' ? '{}' : s.multi ? '**' : '*',
      )
      .join('/')
  );
}
