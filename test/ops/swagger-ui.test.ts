import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { buildRouteTable } from '../../src/gateway/routing/route-table.js';
import { buildOpenApiDocument } from '../../src/ops/openapi/document.js';
import { createSwaggerUi } from '../../src/ops/swagger/swagger-ui.js';
import { apiServices } from '../../src/platform/api/api-services.js';
import { apiDescriptorSet } from '../../src/platform/api/descriptor-set.js';

const distDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

describe('Swagger UI', () => {
  let builds = 0;
  const serve = createSwaggerUi(() => {
    builds++;
    return buildOpenApiDocument(buildRouteTable(apiServices), apiDescriptorSet(), {
      title: 'Messaging API',
      version: 'v1',
      sessionCookieName: 'session',
    });
  });

  it('serves the page, which starts the UI on /swagger/openapi.json', () => {
    for (const path of ['/swagger/', '/swagger', '/swagger/index.html']) {
      const page = serve(path);
      expect(page.status).toBe(200);
      expect(page.contentType).toBe('text/html; charset=utf-8');
      expect(page.body.toString()).toContain('<script src="/swagger/swagger-ui-bundle.js"');
    }
    const initializer = serve('/swagger/swagger-initializer.js');
    expect(initializer.contentType).toMatch(/^text\/javascript/);
    expect(initializer.body.toString()).toContain('url: "/swagger/openapi.json"');
  });

  it('serves the generated document, built once', () => {
    const first = serve('/swagger/openapi.json');
    const second = serve('/swagger/openapi.json');
    expect(first.status).toBe(200);
    expect(first.contentType).toBe('application/json');
    const document = JSON.parse(first.body.toString());
    expect(document.openapi).toBe('3.0.3');
    expect(document.paths['/api/v1/version'].get.operationId).toBe('SystemService_GetVersion');
    expect(second.body).toBe(first.body);
    expect(builds).toBe(1);
  });

  it('serves the UI assets from swagger-ui-dist', () => {
    const css = serve('/swagger/swagger-ui.css');
    expect(css).toMatchObject({ status: 200, contentType: 'text/css; charset=utf-8' });
    expect(css.body.equals(readFileSync(join(distDir, 'swagger-ui.css')))).toBe(true);
    expect(serve('/swagger/swagger-ui-bundle.js').status).toBe(200);
    expect(serve('/swagger/swagger-ui-standalone-preset.js').status).toBe(200);
    expect(serve('/swagger/favicon-32x32.png')).toMatchObject({
      status: 200,
      contentType: 'image/png',
    });
  });

  it('answers 404 for anything else, traversal attempts included', () => {
    for (const path of [
      '/swagger/../package.json',
      '/swagger/..%2fpackage.json',
      '/swagger/%2e%2e/package.json',
      '/swagger//etc/passwd',
      '/swagger/package.json',
      '/swagger/index.js',
      '/swagger/swagger-ui.css/',
      '/swagger/constructor',
      '/swagger/__proto__',
      '/swaggerx',
      '/other',
    ]) {
      const response = serve(path);
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
      expect(JSON.parse(response.body.toString())).toEqual({ success: false, error: 'Not found' });
    }
  });
});
