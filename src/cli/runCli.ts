import { cliErrorMessage } from './cliErrorMessage.js';
import type { Discovery } from '../discovery/types.js';
import { packageVersion } from './packageVersion.js';
import { parseCommandLine } from './parseCommandLine.js';
import type { CliRegistry } from './parseCommandLine.js';
import { renderUsage } from './renderUsage.js';
import { backends as defaultBackends } from './backends.js';
import type { CliBackend, CliFlags, CliIo, CliValues, CommandLine } from './types.js';
import { UsageError } from './UsageError.js';

/** Write errors meaning the reader or the terminal is gone: stop, say nothing. */
const GONE: ReadonlySet<string> = new Set(['EPIPE', 'EIO']);

/**
 * A factory's `TypeError` in the words of the command line:
 * `etcdDiscovery: option endpoints must be …` → `--endpoints must be …`
 * (or `option tls must be …` where no flag sets the option).
 */
function inFlagTerms(message: string, flags: CliFlags): string {
  const match = /^\w+Discovery: (?:option ([\w.]+) )?/.exec(message);
  if (match === null) return message;
  const rest = message.slice(match[0].length);
  const option = match[1];
  if (option === undefined) return rest;
  const flag = option.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
  return Object.prototype.hasOwnProperty.call(flags, flag) ? `--${flag} ${rest}` : `option ${option} ${rest}`;
}

/**
 * Runs `woolrx` with the given arguments and streams; resolves with the
 * exit status: 0 on success or interruption, 1 on a runtime failure, 2 on
 * bad arguments (one line naming the problem, then one pointing at `--help`,
 * on stderr).
 *
 * A command runs until `io.signal` aborts. If stdout or stderr fails with
 * `EPIPE` (the reader went away, e.g. `| head -1`) or `EIO` (the terminal
 * was closed) the command stops quietly, withdrawing and cleaning up as on
 * SIGTERM, and the status is 0; another stdout failure is reported on
 * stderr. The error listeners stay on both streams, so a late failure
 * (the command's last lines, a live table's last frame) cannot crash the
 * process.
 *
 * @example
 * const code = await runCli(['watch', '-n', 'pool', '--json'], { stdout, stderr, signal });
 *
 * @param argv The arguments, without `node` and the script.
 * @param io Where to write and what stops the command.
 * @param registry The known commands and backends (for tests).
 * @returns The exit status.
 */
export async function runCli(argv: readonly string[], io: CliIo, registry?: CliRegistry): Promise<number> {
  const { stdout, stderr } = io;
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  // Installed before anything is written: an 'error' event without a
  // listener would throw from inside the stream and skip every clean-up.
  let stderrFailed = false;
  let speaker = 'woolrx';
  stderr.on('error', () => {
    stderrFailed = true;
    stop();
  });
  stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (!stderrFailed && !GONE.has(error.code ?? '')) stderr.write(`${speaker}: stdout: ${error.message}\n`);
    stop();
  });
  const usageFailure = (error: UsageError): number => {
    const prefix = error.command === undefined ? 'woolrx' : `woolrx ${error.command.name}`;
    stderr.write(`${prefix}: ${error.message}\nRun '${prefix} --help' for the options.\n`);
    return 2;
  };

  let line: CommandLine;
  try {
    line = parseCommandLine(argv, registry);
  } catch (error) {
    if (error instanceof UsageError) return usageFailure(error);
    throw error;
  }
  if (line.kind === 'help') {
    stdout.write(renderUsage(line.command, registry, line.backends));
    return 0;
  }
  if (line.kind === 'version') {
    stdout.write(`${packageVersion}\n`);
    return 0;
  }

  const { command, backend, namespace, values } = line;
  const create = async (chosen: CliBackend, ns: string, flags: CliValues = values): Promise<Discovery> => {
    try {
      return await chosen.create(ns, flags);
    } catch (error) {
      if (error instanceof UsageError || error instanceof TypeError) {
        throw new UsageError(inFlagTerms(error.message, chosen.flags), command);
      }
      throw error;
    }
  };
  speaker = `woolrx ${command.name}`;
  if (io.signal.aborted) stop();
  io.signal.addEventListener('abort', stop, { once: true });
  try {
    return await command.run({
      stdout,
      stderr,
      signal: controller.signal,
      ...(io.now === undefined ? {} : { now: io.now }),
      values,
      namespace,
      ...(backend.reachTimeout === undefined ? {} : { reachTimeout: backend.reachTimeout(values) }),
      ...(backend.namespaces === undefined ? {} : { namespaces: () => backend.namespaces?.(values) }),
      discovery: () => create(backend, namespace),
      discoveryOf: (name: string, ns: string, flags?: CliValues) => {
        const named = (registry ?? { backends: defaultBackends }).backends[name];
        if (named === undefined)
          return Promise.reject(new UsageError(`unknown backend ${JSON.stringify(name)}`, command));
        return create(named, ns, flags);
      },
    });
  } catch (error) {
    if (error instanceof UsageError) return usageFailure(error);
    stderr.write(`woolrx ${command.name}: ${cliErrorMessage(error, namespace)}\n`);
    return 1;
  } finally {
    io.signal.removeEventListener('abort', stop);
  }
}
