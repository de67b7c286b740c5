/**
 * The container image recipe, read as text (no Docker engine runs here): multi-stage with a
 * pinned Node 20 base, production dependencies only in the final stage, non-root, a
 * HEALTHCHECK, and a context that leaves local state out.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from './support/helm.js';

const dockerfile = readFileSync(join(REPO, 'Dockerfile'), 'utf8');
const instructions = dockerfile
  .replace(/\\\n/g, ' ')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line !== '' && !line.startsWith('#'));
const stages = instructions
  .join('\n')
  .split(/^(?=FROM )/m)
  .filter((stage) => stage.startsWith('FROM '));
const finalStage = stages.at(-1) ?? '';

test('builds in one stage and runs from another, on an exactly pinned Node 20 image', () => {
  expect(stages.length).toBeGreaterThanOrEqual(2);
  const base = /^ARG NODE_IMAGE=(\S+)$/m.exec(instructions.join('\n'))?.[1];
  expect(base).toMatch(/^node:20\.\d+\.\d+-[a-z-]+(@sha256:[0-9a-f]{64})?$/);
  for (const stage of stages) expect(stage).toMatch(/^FROM \$\{NODE_IMAGE\} AS \w+/);
});

test('the final stage has compiled output and production dependencies only', () => {
  expect(dockerfile).toMatch(/npm prune --omit=dev/);
  expect(finalStage).toMatch(/COPY --from=build \/app\/dist/);
  expect(finalStage).toMatch(/COPY --from=build \/app\/node_modules/);
  expect(finalStage).not.toMatch(/COPY (\.|src)/);
  expect(finalStage).not.toMatch(/npm (ci|install)/);
});

test('runs as a numeric non-root user with a health check', () => {
  const user = /^USER (\d+)(?::(\d+))?$/m.exec(finalStage);
  expect(Number(user?.[1])).toBeGreaterThan(0);
  expect(finalStage).toMatch(/^HEALTHCHECK .*\/health\/live/m);
  expect(finalStage).toMatch(/^CMD \["node", "dist\/main.js"\]$/m);
});

test('the build context leaves out dependencies, builds, data and the repository', () => {
  const ignored = readFileSync(join(REPO, '.dockerignore'), 'utf8').split('\n');
  for (const entry of ['.git', 'node_modules', 'dist', 'data', '.env*'])
    expect(ignored).toContain(entry);
});
