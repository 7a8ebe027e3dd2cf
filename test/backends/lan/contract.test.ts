/**
 * Runs the backend contract suite against lanDiscovery inside a network
 * namespace of its own (real mDNS on a private loopback), and passes if the
 * suite passed there. Its output is relayed as test diagnostics.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Netns } from './netns.js';

describe('lanDiscovery: discovery contract (inside a network namespace)', () => {
  // Three full runs (probe off and on, and signed records), each test with its own timeout; the
  // whole file is capped well above their sum (about 70 s here, more on a loaded machine).
  it('passes every contract test', { timeout: 480_000 }, async (t) => {
    const netns = Netns.create('contract');
    try {
      const child = netns.spawnNode(
        'test/backends/lan/children/contract.ts',
        [],
        ['--test', '--test-reporter=spec', '--test-timeout=420000'],
      );
      child.stdin?.end();
      let output = '';
      child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
      child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
      const code = await new Promise<number | null>((resolve) => child.once('exit', (status) => resolve(status)));
      for (const line of output.split('\n')) if (/^\s*(✔|✖|ℹ)/.test(line)) t.diagnostic(line.trim());
      assert.equal(code, 0, `the contract suite failed inside the namespace:\n${output}`);
      assert.match(output, /ℹ pass [1-9]/, 'tests ran');
      assert.match(output, /ℹ fail 0/);
    } finally {
      netns.dispose();
    }
  });
});
