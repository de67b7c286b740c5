/**
 * The Swagger UI files served from the `swagger-ui-dist` package. Only the names listed here
 * can be read, so a request path never reaches the file system (no traversal, no probing).
 * Each file is read on first use and kept: they never change while the process runs.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'index.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-16x16.png': 'image/png',
  'favicon-32x32.png': 'image/png',
};

const distDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const cache = new Map<string, Buffer>();

/** The file and its content type, or undefined when the name is not an asset of the UI. */
export function staticAsset(name: string): { contentType: string; body: Buffer } | undefined {
  if (!Object.hasOwn(CONTENT_TYPES, name)) return undefined;
  let body = cache.get(name);
  if (!body) {
    body = readFileSync(join(distDir, name));
    cache.set(name, body);
  }
  return { contentType: CONTENT_TYPES[name] as string, body };
}
