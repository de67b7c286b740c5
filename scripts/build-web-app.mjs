// Builds the reference web app (client/app) into a folder the service serves at /app/:
// one ES module bundle (the app and the SDK, esbuild), its page and its stylesheet.
//   node scripts/build-web-app.mjs [out-dir]      (default dist/web-app; `npm run build` runs it)
import { copyFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const appDir = `${root}client/app`;

export async function buildWebApp(outDir) {
  mkdirSync(outDir, { recursive: true });
  await build({
    entryPoints: [`${appDir}/main.ts`],
    outfile: `${outDir}/app.js`,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    sourcemap: true,
    logLevel: 'warning',
  });
  for (const name of ['index.html', 'app.css'])
    copyFileSync(`${appDir}/${name}`, `${outDir}/${name}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  await buildWebApp(process.argv[2] ?? `${root}dist/web-app`);
