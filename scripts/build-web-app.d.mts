/** Types of build-web-app.mjs, for the browser tests that build the app with it. */
export function buildWebApp(outDir: string): Promise<void>;
