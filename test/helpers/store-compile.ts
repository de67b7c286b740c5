import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const repo = fileURLToPath(new URL('../..', import.meta.url));

export interface CompiledStore {
  /** Absolute path of the compiled open-store.js. */
  openStorePath: string;
  remove(): Promise<void>;
}

/**
 * Compiles src/platform/store (only it, so unfinished code elsewhere cannot break the build)
 * into a temporary directory that a child `node` process can run: ESM package scope and the
 * repository's node_modules linked beside it for bare imports.
 */
export async function compileStoreForChildProcess(): Promise<CompiledStore> {
  const dir = await mkdtemp(join(tmpdir(), 'store-build-'));
  const remove = () => rm(dir, { recursive: true, force: true });
  try {
    await writeFile(join(dir, 'package.json'), '{"type":"module"}');
    await symlink(join(repo, 'node_modules'), join(dir, 'node_modules'), 'dir');
    const outDir = join(dir, 'build');
    await mkdir(outDir);
    const tsc = join(repo, 'node_modules', '.bin', 'tsc');
    const flags = ['--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--target', 'ES2022', '--strict'];
    await promisify(execFile)(
      tsc,
      ['--outDir', outDir, ...flags, '--skipLibCheck', '--types', 'node', join(repo, 'src/platform/store/open-store.ts')],
      { cwd: repo },
    );
    return { openStorePath: join(outDir, 'open-store.js'), remove };
  } catch (err) {
    await remove();
    throw err;
  }
}
