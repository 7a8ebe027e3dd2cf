// The quickstart as a user runs it, outside `npm test`'s own npm settings:
// npm's commands print what npm always prints (no project .npmrc turns on
// `json`), and `npm --silent start | …` is pure NDJSON: npm's banner is off,
// the build (only when dist/ is stale; `npm test` has just built it) writes
// to stderr, and the piped demo prints NDJSON only.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';

const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));

describe('npm start', { timeout: 120_000 }, () => {
  it('npm install prints its usual summary, not JSON (the quickstart starts with npm ci)', () => {
    const result = spawnSync('npm', ['install', '--dry-run', '--offline', '--no-audit', '--no-fund'], {
      encoding: 'utf8',
      env,
      timeout: 60_000,
    });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /up to date|added \d+ package/);
    assert.doesNotMatch(result.stdout.trimStart(), /^[{[]/, 'no JSON on stdout');
  });

  it('npm --silent start, piped: its first line of stdout is a JSON worker event, and the demo stops when the pipe closes', () => {
    const result = spawnSync('sh', ['-c', 'npm --silent start | head -1'], { encoding: 'utf8', env, timeout: 100_000 });
    assert.equal(result.status, 0, result.stderr);
    const lines = result.stdout.split('\n').filter((line) => line !== '');
    assert.equal(lines.length, 1, `stdout: ${result.stdout}`);
    const event = JSON.parse(lines[0] ?? '') as { type?: string; worker?: { uid?: string } };
    assert.equal(event.type, 'worker-added');
    assert.match(event.worker?.uid ?? '', /^[0-9a-f-]{36}$/);
  });
});
