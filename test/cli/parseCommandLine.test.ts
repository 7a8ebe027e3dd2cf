import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseCommandLine } from '../../src/cli/parseCommandLine.js';
import type { CliRegistry } from '../../src/cli/parseCommandLine.js';
import { commands } from '../../src/cli/commands.js';
import { backends } from '../../src/cli/backends.js';
import { UsageError } from '../../src/cli/UsageError.js';
import type { CliBackend } from '../../src/cli/types.js';

function usageError(argv: string[], pattern: RegExp, registry?: CliRegistry): UsageError {
  let caught: unknown;
  try {
    parseCommandLine(argv, registry);
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof UsageError, `expected a UsageError for ${JSON.stringify(argv)}, got ${String(caught)}`);
  assert.match(caught.message, pattern);
  assert.ok(!caught.message.includes('\n'), 'one line');
  return caught;
}

function run(argv: string[], registry?: CliRegistry) {
  const line = parseCommandLine(argv, registry);
  assert.equal(line.kind, 'run');
  return line;
}

const UID = '6f1d2b1c-4c0b-4e7e-9a56-0c2b9d1d7e11';

describe('parseCommandLine', () => {
  it('reads help and version at the top level', () => {
    assert.deepEqual(parseCommandLine(['--help']), { kind: 'help' });
    assert.deepEqual(parseCommandLine(['-h']), { kind: 'help' });
    assert.deepEqual(parseCommandLine(['help']), { kind: 'help' });
    assert.deepEqual(parseCommandLine(['--version']), { kind: 'version' });
    assert.deepEqual(parseCommandLine(['-V']), { kind: 'version' });
  });

  it('reads help of a command, even next to bad or missing flags', () => {
    assert.deepEqual(parseCommandLine(['watch', '--help']), { kind: 'help', command: commands['watch'] });
    assert.deepEqual(parseCommandLine(['publish', '-h']), { kind: 'help', command: commands['publish'] });
    assert.deepEqual(parseCommandLine(['help', 'publish']), { kind: 'help', command: commands['publish'] });
    assert.deepEqual(parseCommandLine(['watch', '--bogus', '--help']), { kind: 'help', command: commands['watch'] });
  });

  it('reads watch with the local backend by default', () => {
    const line = run(['watch', '--namespace', 'pool', '--json']);
    assert.equal(line.command, commands['watch']);
    assert.equal(line.backendName, 'local');
    assert.equal(line.backend, backends['local']);
    assert.equal(line.namespace, 'pool');
    assert.equal(line.values['json'], true);
  });

  it('reads short flags, = syntax and backend flags', () => {
    const line = run(['watch', '--namespace=pool', '-b', 'local', '--capacity', '8', '--poll-interval=0']);
    assert.equal(line.namespace, 'pool');
    assert.equal(line.values['capacity'], '8');
    assert.equal(line.values['poll-interval'], '0');
    assert.equal(line.values['json'], undefined);
  });

  it('reads publish with repeated tags and extras', () => {
    const line = run([
      'publish',
      '-n',
      'pool',
      '-a',
      '127.0.0.1:9000',
      '--uid',
      UID,
      '--pid',
      '7',
      '--version',
      '1.2.3',
      '--tag',
      'gpu',
      '--tag',
      'cpu',
      '--extra',
      'zone=eu-1',
      '--extra',
      'expr=a=b',
      '--secure',
    ]);
    assert.equal(line.command, commands['publish']);
    assert.deepEqual(line.values['tag'], ['gpu', 'cpu']);
    assert.deepEqual(line.values['extra'], ['zone=eu-1', 'expr=a=b']);
    assert.equal(line.values['secure'], true);
    assert.equal(line.values['version'], '1.2.3');
  });

  it('refuses a missing or unknown command', () => {
    assert.equal(usageError([], /missing command/).command, undefined);
    usageError(['fly'], /unknown command "fly"/);
    usageError(['help', 'fly'], /unknown command "fly"/);
    usageError(['--namespace', 'x'], /expected a command before "--namespace"/);
    usageError(['--version', 'watch'], /unexpected argument/);
  });

  it('refuses unknown flags, stray arguments and missing values, naming the command', () => {
    assert.equal(usageError(['watch', '-n', 'x', '--bogus'], /^unknown option --bogus$/).command, commands['watch']);
    usageError(['watch', '-n', 'x', 'stray'], /unexpected argument "stray"/);
    usageError(['watch', '--namespace'], /--namespace/);
    usageError(['watch', '-n', 'x', '--json=yes'], /--json/);
    usageError(['publish', '-n', 'x', '-a', 'h:1', '--json'], /unknown option --json/);
  });

  it('suggests the command, option or backend meant, within two edits (none for a hidden option or a far-off word)', () => {
    usageError(['wacth', '-n', 'x'], /^unknown command "wacth" \(did you mean "watch"\?\)$/);
    usageError(['publsh'], /^unknown command "publsh" \(did you mean "publish"\?\)$/);
    usageError(['help', 'lsit'], /^unknown command "lsit" \(did you mean "list"\?\)$/);
    usageError(['fly'], /^unknown command "fly"$/);
    usageError(['watch', '-n', 'x', '--bakend', 'etcd'], /^unknown option --bakend \(did you mean "--backend"\?\)$/);
    usageError(
      ['watch', '-n', 'x', '--endpoint=http://a:1'],
      /^unknown option --endpoint \(did you mean "--endpoints"\?\)$/,
    );
    usageError(['list', '-n', 'x', '--jsno'], /^unknown option --jsno \(did you mean "--json"\?\)$/);
    usageError(['demo', '--as-workr', '{}'], /^unknown option --as-workr$/);
    usageError(['watch', '-n', 'x', '-b', 'etdc'], /^unknown backend "etdc" \(did you mean "etcd"\?\)$/);
    usageError(
      ['relay', '--from', 'locl', '-n', 'x', '--to', 'etcd'],
      /^unknown backend "locl" for --from \(did you mean "local"\?\)$/,
    );
  });

  it('help names the backends the command line names, and only those', () => {
    assert.deepEqual(parseCommandLine(['watch', '-b', 'etcd', '--help']), {
      kind: 'help',
      command: commands['watch'],
      backends: ['etcd'],
    });
    assert.deepEqual(parseCommandLine(['relay', '--from', 'local', '--to', 'etcd', '-h']), {
      kind: 'help',
      command: commands['relay'],
      backends: ['local', 'etcd'],
    });
    assert.deepEqual(parseCommandLine(['watch', '-b', 'nope', '--help']), { kind: 'help', command: commands['watch'] });
  });

  it('requires --namespace, and --address for publish', () => {
    usageError(['watch'], /missing --namespace/);
    usageError(['watch', '--json'], /missing --namespace/);
    usageError(['publish', '-n', 'x'], /missing --address/);
  });

  it('refuses an unknown backend, listing the known ones', () => {
    usageError(
      ['watch', '-n', 'x', '--backend', 'zookeeper'],
      /unknown backend "zookeeper" \(known: local, lan, etcd\)/,
    );
  });

  it('shows workerInfo validation errors for publish', () => {
    usageError(['publish', '-n', 'x', '-a', 'h:1', '--uid', 'nope'], /^Invalid worker uid: "nope"/);
    usageError(['publish', '-n', 'x', '-a', 'no-port'], /^Invalid worker address: "no-port"/);
    usageError(['publish', '-n', 'x', '-a', 'h:1', '--pid=-1'], /^Invalid worker pid: -1/);
    usageError(['publish', '-n', 'x', '-a', 'h:1', '--pid', '2147483648'], /^Invalid worker pid/);
    usageError(['publish', '-n', 'x', '-a', 'h:1', '--pid', '12abc'], /--pid: "12abc" is not an integer/);
    usageError(['publish', '-n', 'x', '-a', 'h:1', '--extra', 'zone'], /--extra "zone": expected KEY=VALUE/);
    usageError(['publish', '-n', 'x', '-a', 'h:1', '--extra', '=v'], /empty key/);
    usageError(['publish', '-n', 'x', '-a', 'h:1', '--extra', 'a=1', '--extra', 'a=2'], /"a" given twice/);
  });

  it('accepts a backend flag only with its backend', () => {
    const etcd: CliBackend = {
      summary: 'test etcd',
      flags: { endpoints: { type: 'string', multiple: true, valueName: 'URL', description: 'etcd endpoints' } },
      create: () => {
        throw new Error('not called');
      },
    };
    const registry: CliRegistry = { commands, backends: { ...backends, etcd } };
    const line = run(['watch', '-n', 'x', '--backend', 'etcd', '--endpoints', 'http://a:2379'], registry);
    assert.equal(line.backend, etcd);
    assert.deepEqual(line.values['endpoints'], ['http://a:2379']);
    usageError(
      ['watch', '-n', 'x', '--endpoints', 'http://a:2379'],
      /--endpoints is an option of --backend etcd, not local/,
      registry,
    );
    usageError(
      ['watch', '-n', 'x', '--backend', 'etcd', '--capacity', '4'],
      /--capacity is an option of --backend local, not etcd/,
      registry,
    );
  });
});
