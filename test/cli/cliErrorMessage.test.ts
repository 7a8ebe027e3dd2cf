// Runtime errors in the CLI's words: the problem and the fix, per error code;
// repeated backend warnings at most once per 30 s, an unreachable etcd as a status.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cliErrorMessage } from '../../src/cli/cliErrorMessage.js';
import { diagnosticLines } from '../../src/cli/diagnosticLines.js';

const coded = (code: string, fields: Record<string, unknown>, message = 'backend text'): Error =>
  Object.assign(new Error(message), { code, ...fields });

describe('cliErrorMessage', () => {
  it('names the fix for the errors a newcomer meets', () => {
    const other = (process.geteuid?.() ?? 0) + 1;
    assert.match(
      cliErrorMessage(coded('WOOLRX_BLOCK_EXHAUSTED', { size: 3104, blockSize: 1024 }), 'ns'),
      /needs 3104 bytes .* holds 1024: .*--block-size$/,
    );
    assert.match(
      cliErrorMessage(coded('WOOLRX_CAPACITY_EXHAUSTED', { capacity: 4 }), 'ns'),
      /^namespace "ns" is full \(4 workers\): .*--capacity/,
    );
    assert.equal(
      cliErrorMessage(coded('WOOLRX_UNSAFE_OBJECT', { owner: other, path: '/dev/shm/woolrx-lock-x' }), 'ns'),
      `namespace "ns" belongs to uid ${other} (/dev/shm/woolrx-lock-x); pick another namespace, or run as uid ${other}`,
    );
    assert.equal(
      cliErrorMessage(
        coded(
          'WOOLRX_ETCD_UNAVAILABLE',
          { endpoints: ['http://a:2379'] },
          'etcd is unreachable at http://a:2379: 14 UNAVAILABLE: connect ECONNREFUSED',
        ),
        'ns',
      ),
      'etcd is unreachable at http://a:2379: 14 UNAVAILABLE: connect ECONNREFUSED; start etcd, or pass --endpoints URL',
    );
    assert.match(cliErrorMessage(coded('WOOLRX_LOCK_TIMEOUT', {}), 'ns'), /--lock-timeout$/);
    assert.equal(cliErrorMessage(new Error('other'), 'ns'), 'other');
  });
});

describe('diagnosticLines', () => {
  it('shows an unreachable etcd as the status and once per 30 s in the log; recovered clears it', () => {
    const lines: string[] = [];
    const statuses: (string | undefined)[] = [];
    let clock = 0;
    const report = diagnosticLines(
      { line: (text) => lines.push(text), status: (text) => statuses.push(text) },
      () => clock,
    );
    const down = {
      kind: 'warning',
      namespace: 'ns',
      message: 'etcd read failed; retrying in 100 ms',
      error: coded('WOOLRX_ETCD_UNAVAILABLE', { endpoints: ['http://127.0.0.1:2379'] }),
    } as const;
    for (let i = 0; i < 20; i += 1) {
      report(down);
      clock += 1_000;
    }
    clock += 15_000;
    report(down);
    report({ kind: 'recovered', namespace: 'ns', message: 'etcd is back' });
    assert.deepEqual(lines, [
      'etcd unreachable at http://127.0.0.1:2379, retrying; start etcd or pass --endpoints URL',
      'etcd unreachable at http://127.0.0.1:2379, retrying; start etcd or pass --endpoints URL (19 more like it in the last 35 s)',
      'recovered: etcd is back',
    ]);
    assert.equal(statuses.at(-1), undefined);
    assert.equal(
      statuses[0],
      'etcd unreachable at http://127.0.0.1:2379, retrying; start etcd or pass --endpoints URL',
    );
  });

  it('shows every malformed record', () => {
    const lines: string[] = [];
    const report = diagnosticLines({ line: (text) => lines.push(text) }, () => 0);
    report({ kind: 'malformed-record', namespace: 'ns', message: 'bad length 9', uid: 'u' });
    report({ kind: 'malformed-record', namespace: 'ns', message: 'bad length 9', uid: 'u' });
    assert.deepEqual(lines, ['malformed-record (worker u): bad length 9', 'malformed-record (worker u): bad length 9']);
  });
});
