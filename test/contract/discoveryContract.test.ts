import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const fixture = fileURLToPath(new URL('./fixtures/brokenMemoryBackend.ts', import.meta.url));

/**
 * Runs the contract suite against the memory backend once per bug; resolves with each bug's passed and failed test
 * titles.
 */
function runWithBugs(
  bugs: readonly string[],
): Promise<{ results: Map<string, { passed: string[]; failed: string[] }>; output: string }> {
  return new Promise((resolve, reject) => {
    // Without NODE_TEST_CONTEXT, or the child would report to this runner instead of running its own.
    const { NODE_TEST_CONTEXT: _context, ...env } = process.env;
    const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', fixture], {
      env: { ...env, WOOLRX_CONTRACT_BUGS: bugs.join(',') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', () => {
      const results = new Map<string, { passed: string[]; failed: string[] }>();
      // One top-level suite per bug; its tests are TAP lines indented once.
      const sections = output.split(/^# Subtest: memory with bug (\S+): discovery contract$/m);
      for (let i = 1; i + 1 < sections.length; i += 2) {
        const section = sections[i + 1] ?? '';
        const titles = (status: string): string[] =>
          [...section.matchAll(new RegExp(`^ {4}${status} \\d+ - (.*)$`, 'gm'))].map((match) => match[1] ?? '');
        results.set(sections[i] ?? '', { passed: titles('ok'), failed: titles('not ok') });
      }
      resolve({ results, output });
    });
  });
}

const BUGS: Record<string, string> = {
  'readd-as-add': 're-adding a registered worker is one worker-updated',
  'no-withdraw': 'close() withdraws every worker its publisher registered',
  leak: 'unsubscribing releases everything',
  'no-replay': 'a late subscriber receives every current worker',
  'lenient-update': 'updating an unknown worker rejects with WorkerNotFoundError',
  'one-namespace': 'namespaces are isolated',
  'closed-accepts': 'publishing after close rejects with PublisherClosedError',
  'no-filter': 'events(filter) emits only passing workers',
  'last-writer-owns': 'ownership: an update from another publisher changes the metadata, not the owner',
  'no-synced': 'synced: the first snapshot is the complete initial state',
};

describe('discovery contract suite', () => {
  it('passes the unbroken backend and fails each broken one in the test that states the broken rule', async () => {
    const { results, output } = await runWithBugs(['none', ...Object.keys(BUGS)]);
    const control = results.get('none');
    assert.ok(control, output);
    assert.deepEqual(control.failed, [], output);
    assert.equal(control.passed.length, 17, output);
    for (const [bug, expected] of Object.entries(BUGS)) {
      const failed = results.get(bug)?.failed;
      assert.ok(
        failed?.some((title) => title.startsWith(expected)),
        `bug ${bug} should fail "${expected}"; failed: ${JSON.stringify(failed)}\n${output}`,
      );
    }
  });
});
