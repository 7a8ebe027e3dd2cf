import { backends as defaultBackends } from './backends.js';
import { commands as defaultCommands } from './commands.js';
import { commonFlags } from './commonFlags.js';
import type { CliRegistry } from './parseCommandLine.js';
import type { CliCommand, CliFlags } from './types.js';

function flagRows(flags: CliFlags): [string, string][] {
  return Object.entries(flags).map(([name, flag]) => {
    const short = flag.short === undefined ? '    ' : `-${flag.short}, `;
    const value = flag.type === 'string' ? ` ${flag.valueName ?? 'VALUE'}` : '';
    const repeat = flag.multiple === true ? ' (repeatable)' : '';
    return [`${short}--${name}${value}`, `${flag.description}${repeat}`];
  });
}

/** The common flags as a command takes them: `--namespace` is optional where the command has a default. */
function commonFlagsOf(command: CliCommand): CliFlags {
  if (command.backendFlags !== undefined) {
    // The command names its backends with its own flags, not --backend.
    const { backend: _backend, ...rest } = commonFlags;
    return rest;
  }
  const namespace = commonFlags['namespace'];
  if (command.defaultNamespace === undefined || namespace === undefined) return commonFlags;
  return { ...commonFlags, namespace: { ...namespace, description: 'The namespace (default: a fresh, unique one)' } };
}

function table(rows: readonly (readonly [string, string])[]): string[] {
  const width = Math.max(0, ...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`.trimEnd());
}

/**
 * The usage text of `woolrx`, or of one command: synopsis, flags (the
 * command's, the common ones, each backend's). Ends with a newline.
 *
 * @example
 * renderUsage(); // 'Usage: woolrx <command> [options]\n...'
 * renderUsage(commands.watch); // 'Usage: woolrx watch --namespace NS [--json] [options]\n...'
 *
 * @param command The command; the overview when absent.
 * @param registry The known commands and backends.
 * @returns The text.
 */
export function renderUsage(
  command?: CliCommand,
  registry: CliRegistry = { commands: defaultCommands, backends: defaultBackends },
): string {
  const lines: string[] = [];
  const backendRows = Object.entries(registry.backends).map(
    ([name, backend]) => [name, backend.summary] as [string, string],
  );
  if (command === undefined) {
    lines.push(
      'Usage: woolrx <command> [options]',
      '       woolrx <command> --help',
      '',
      'Worker discovery, wire-compatible with wool.',
      '',
      'Commands:',
      ...table(Object.values(registry.commands).map((c) => [c.name, c.summary] as [string, string])),
      '',
      'Options:',
      ...table([
        ['-h, --help', 'Show this help'],
        ['-V, --version', "Print woolrx's version"],
      ]),
      '',
      'Backends (--backend NAME):',
      ...table(backendRows),
    );
  } else {
    lines.push(
      `Usage: woolrx ${command.name} ${command.synopsis}`,
      '',
      command.summary,
      '',
      'Options:',
      ...table([...flagRows(command.flags), ...flagRows(commonFlagsOf(command))]),
    );
    for (const [name, backend] of Object.entries(registry.backends)) {
      // A flag the command declares itself is the command's, not the backend's.
      const rows = flagRows(Object.fromEntries(Object.entries(backend.flags).filter(([flag]) => !(flag in command.flags))));
      if (rows.length === 0) continue;
      const picked = command.backendFlags?.map((flag) => `--${flag} ${name}`).join(' or ') ?? `--backend ${name}`;
      lines.push('', `Options of ${picked}:`, ...table(rows));
    }
  }
  lines.push('', 'Exit status: 0 on success or interruption (SIGINT/SIGTERM/SIGHUP), 1 on failure, 2 on bad arguments.');
  return `${lines.join('\n')}\n`;
}
