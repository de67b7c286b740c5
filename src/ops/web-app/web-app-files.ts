/**
 * Serves the reference web app (client/app, built by `npm run build` into `dist/web-app`) under
 * `/app/`. Only the files the build wrote can be read: the folder is listed once, on the first
 * request, so a request path never reaches the file system (no traversal, no probing); each file
 * is read then and kept, as the build does not change while the process runs.
 *
 * Every file carries a strong ETag and `Cache-Control: no-cache`: a browser keeps it and asks
 * again with `If-None-Match` on every load, answered `304` without a body while the build is
 * the same. The page names the service (`<meta name="service-name">`, SERVICE_NAME), which the
 * key binding the wallet signs must name.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jsonResponse } from '../../server/http-message.js';
import type { HttpResponseData } from '../../server/http-message.js';
import { ifNoneMatchMatches } from '../../server/http-preconditions.js';

export const WEB_APP_BASE_PATH = '/app/';

/** `dist/web-app` of this installation, whether this file runs from src/, dist/ or a test build. */
export const DEFAULT_WEB_APP_DIR = fileURLToPath(
  new URL('../../../dist/web-app/', import.meta.url),
);

/** The placeholder of index.html that the service fills with its name. */
const SERVICE_NAME_META = '<meta name="service-name" content="" />';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
  '.png': 'image/png',
};

export interface WebAppOptions {
  /** The folder the build wrote. */
  readonly directory: string;
  /** SERVICE_NAME, written into the page for the app. */
  readonly serviceName: string;
}

/** What a request for a file needs: its path and the `If-None-Match` the browser sent, if any. */
export interface WebAppRequest {
  readonly path: string;
  readonly ifNoneMatch: string | undefined;
}

interface StaticFile {
  readonly contentType: string;
  readonly etag: string;
  readonly body: Buffer;
}

const notFound = (error: string) => jsonResponse(404, { success: false, error, code: 'NOT_FOUND' });

const escapeAttribute = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

function readFile(directory: string, name: string, serviceName: string): Buffer {
  const body = readFileSync(join(directory, name));
  if (name !== 'index.html') return body;
  const meta = `<meta name="service-name" content="${escapeAttribute(serviceName)}" />`;
  return Buffer.from(body.toString('utf8').replace(SERVICE_NAME_META, meta));
}

function loadFiles({ directory, serviceName }: WebAppOptions): Map<string, StaticFile> {
  const found = new Map<string, StaticFile>();
  if (!existsSync(directory)) return found;
  for (const name of readdirSync(directory)) {
    const contentType = CONTENT_TYPES[extname(name)];
    if (!contentType) continue;
    const body = readFile(directory, name, serviceName);
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    found.set(name, { contentType, etag, body });
  }
  return found;
}

function fileResponse(file: StaticFile, ifNoneMatch: string | undefined): HttpResponseData {
  const validators: [string, string][] = [
    ['ETag', file.etag],
    ['Cache-Control', 'no-cache'],
  ];
  if (ifNoneMatchMatches(ifNoneMatch, file.etag))
    return { status: 304, headers: validators, body: Buffer.alloc(0) };
  return {
    status: 200,
    headers: [
      ['Content-Type', file.contentType],
      ...validators,
      // No framing and no sniffing: the app shows what users send.
      ['X-Content-Type-Options', 'nosniff'],
      ['X-Frame-Options', 'DENY'],
    ],
    body: file.body,
  };
}

export function createWebApp(options: WebAppOptions): (request: WebAppRequest) => HttpResponseData {
  let files: Map<string, StaticFile> | undefined;
  return ({ path, ifNoneMatch }) => {
    files ??= loadFiles(options);
    if (path === WEB_APP_BASE_PATH.slice(0, -1))
      return { status: 308, headers: [['Location', WEB_APP_BASE_PATH]], body: Buffer.alloc(0) };
    const file = files.get(path.slice(WEB_APP_BASE_PATH.length) || 'index.html');
    if (file) return fileResponse(file, ifNoneMatch);
    return notFound(
      files.size === 0 ? 'The web app is not built: run `npm run build`' : 'Not found',
    );
  };
}
