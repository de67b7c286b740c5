/**
 * Serves the API documentation under `/swagger/`: the Swagger UI page, its assets and the
 * generated OpenAPI document. Framework-free: the HTTP server maps a request path to a
 * `SwaggerResponse` and writes it out.
 */
import { indexHtml, initializerJs } from './index-page.js';
import { staticAsset } from './static-assets.js';

export interface SwaggerResponse {
  readonly status: 200 | 404;
  readonly contentType: string;
  readonly body: Buffer;
}

export const SWAGGER_BASE_PATH = '/swagger/';
const DOCUMENT_NAME = 'openapi.json';

const NOT_FOUND: SwaggerResponse = {
  status: 404,
  contentType: 'application/json',
  body: Buffer.from(JSON.stringify({ success: false, error: 'Not found' })),
};

/**
 * `buildDocument` runs once, on the first request for the document; the result is kept.
 * The handler takes the request path without its query string.
 */
export function createSwaggerUi(buildDocument: () => unknown): (path: string) => SwaggerResponse {
  const page: SwaggerResponse = {
    status: 200,
    contentType: 'text/html; charset=utf-8',
    body: Buffer.from(indexHtml(SWAGGER_BASE_PATH)),
  };
  const initializer: SwaggerResponse = {
    status: 200,
    contentType: 'text/javascript; charset=utf-8',
    body: Buffer.from(initializerJs(SWAGGER_BASE_PATH + DOCUMENT_NAME)),
  };
  let document: SwaggerResponse | undefined;

  return (path) => {
    // The page links its assets by absolute path, so it also works without the trailing slash.
    if (path === SWAGGER_BASE_PATH.slice(0, -1)) return page;
    if (!path.startsWith(SWAGGER_BASE_PATH)) return NOT_FOUND;
    const name = path.slice(SWAGGER_BASE_PATH.length);
    switch (name) {
      case '':
      case 'index.html':
        return page;
      case 'swagger-initializer.js':
        return initializer;
      case DOCUMENT_NAME:
        document ??= {
          status: 200,
          contentType: 'application/json',
          body: Buffer.from(JSON.stringify(buildDocument())),
        };
        return document;
      default: {
        const asset = staticAsset(name);
        return asset ? { status: 200, ...asset } : NOT_FOUND;
      }
    }
  };
}
