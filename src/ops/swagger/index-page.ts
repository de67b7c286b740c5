/**
 * The Swagger UI page. The start-up script is a file of its own rather than inline, so that
 * the page works under a Content-Security-Policy that forbids inline scripts.
 */
export function indexHtml(basePath: string): string {
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <title>API documentation</title>
    <link rel="stylesheet" type="text/css" href="${basePath}swagger-ui.css">
    <link rel="stylesheet" type="text/css" href="${basePath}index.css">
    <link rel="icon" type="image/png" href="${basePath}favicon-32x32.png" sizes="32x32">
    <link rel="icon" type="image/png" href="${basePath}favicon-16x16.png" sizes="16x16">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${basePath}swagger-ui-bundle.js" charset="UTF-8"></script>
    <script src="${basePath}swagger-ui-standalone-preset.js" charset="UTF-8"></script>
    <script src="${basePath}swagger-initializer.js" charset="UTF-8"></script>
  </body>
</html>
`;
}

export function initializerJs(documentUrl: string): string {
  return `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(documentUrl)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: 'StandaloneLayout',
  });
};
`;
}
