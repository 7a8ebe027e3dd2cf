// `npm start | head -1` is one NDJSON event: npm's banner goes to stderr (the
// repository's .npmrc), the build (only when dist/ is stale; `npm test` has
// just built it) writes to stderr, and the piped demo prints NDJSON only.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';

describe('npm start', { timeout: 120_000 }, () => {
  it('piped, its first line of stdout is a JSON worker event, and the demo stops when the pipe closes', () => {
    // Outside `npm test`'s own npm settings, as a user runs it.
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
    const result = spawnSync('sh', ['-c', 'npm start | head -1'], { encoding: 'utf8', env, timeout: 100_000 });
    assert.equal(result.status, 0, result.stderr);
    const lines = result.stdout.split('\n').filter((line) => line !== '');
    assert.equal(lines.length, 1, `stdout: ${result.stdout}`);
    const event = JSON.parse(lines[0] ?? '') as { type?: string; worker?: { uid?: string } };
    assert.equal(event.type, 'worker-added');
    assert.match(event.worker?.uid ?? '', /^[0-9a-f-]{36}$/);
    assert.match(result.stderr, /> woolrx@[\d.]+ start/, "npm's banner is on stderr");
  });
});
