/**
 * Serves the reference web app (client/app, built by `npm run build` into `dist/app`) under
 * `/app/`. Only the files the build wrote can be read: the folder is listed once, on the first
 * request, so a request path never reaches the file system (no traversal, no probing); each file
 * is read then and kept, as the build does not change while the process runs.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jsonResponse } from '../../server/http-message.js';
import type { HttpResponseData } from '../../server/http-message.js';

export const WEB_APP_BASE_PATH = '/app/';

/** `dist/app` of this installation, whether this file runs from src/, dist/ or a test build. */
export const DEFAULT_WEB_APP_DIR = fileURLToPath(new URL('../../../dist/app/', import.meta.url));

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
  '.png': 'image/png',
};

const notFound = (error: string) => jsonResponse(404, { success: false, error, code: 'NOT_FOUND' });

export function createWebApp(directory: string): (path: string) => HttpResponseData {
  let files: Map<string, HttpResponseData> | undefined;
  const load = () => {
    const found = new Map<string, HttpResponseData>();
    if (!existsSync(directory)) return found;
    for (const name of readdirSync(directory)) {
      const contentType = CONTENT_TYPES[extname(name)];
      if (!contentType) continue;
      found.set(name, {
        status: 200,
        headers: [
          ['Content-Type', contentType],
          // Same-origin framing only, and no sniffing: the app shows what users send.
          ['X-Content-Type-Options', 'nosniff'],
          ['X-Frame-Options', 'DENY'],
          ['Cache-Control', 'no-cache'],
        ],
        body: readFileSync(join(directory, name)),
      });
    }
    return found;
  };
  return (path) => {
    files ??= load();
    if (path === WEB_APP_BASE_PATH.slice(0, -1))
      return { status: 308, headers: [['Location', WEB_APP_BASE_PATH]], body: Buffer.alloc(0) };
    const name = path.slice(WEB_APP_BASE_PATH.length) || 'index.html';
    const file = files.get(name);
    if (file) return file;
    return notFound(
      files.size === 0 ? 'The web app is not built: run `npm run build`' : 'Not found',
    );
  };
}
