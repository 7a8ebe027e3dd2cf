import { DEFAULT_BACKEND, backends as defaultBackends } from './backends.js';
import { commands as defaultCommands } from './commands.js';
import { commonFlags } from './commonFlags.js';
import type { CliRegistry } from './parseCommandLine.js';
import type { CliCommand, CliFlags } from './types.js';

/** The flags a command's usage shows: not the hidden ones, nor those meant for other commands. */
function shownFlags(flags: CliFlags, command: CliCommand): CliFlags {
  return Object.fromEntries(
    Object.entries(flags).filter(
      ([, flag]) => flag.hidden !== true && (flag.commands === undefined || flag.commands.includes(command.name)),
    ),
  );
}

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
 * command's, the common ones, and those of the backends the command line
 * names — `local` by default — with one line naming the other backends).
 * Hidden flags and flags meant for other commands are left out. Ends with
 * a newline.
 *
 * @example
 * renderUsage(); // 'Usage: woolrx <command> [options]\n...'
 * renderUsage(commands.watch); // 'Usage: woolrx watch --namespace NS [--json] [options]\n...'
 *
 * @param command The command; the overview when absent.
 * @param registry The known commands and backends.
 * @param backends The backends whose options to show (`--backend etcd --help`).
 * @returns The text.
 */
export function renderUsage(
  command?: CliCommand,
  registry: CliRegistry = { commands: defaultCommands, backends: defaultBackends },
  backends?: readonly string[],
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
      ...table([...flagRows(shownFlags(command.flags, command)), ...flagRows(commonFlagsOf(command))]),
    );
    // The options of the backends the command line names (local by default); the others are named.
    const chosen =
      backends ?? (command.backendFlags === undefined && DEFAULT_BACKEND in registry.backends ? [DEFAULT_BACKEND] : []);
    const others: string[] = [];
    for (const [name, backend] of Object.entries(registry.backends)) {
      // A flag the command declares itself is the command's, not the backend's.
      const own = Object.fromEntries(Object.entries(backend.flags).filter(([flag]) => !(flag in command.flags)));
      const rows = flagRows(shownFlags(own, command));
      if (rows.length === 0) continue;
      if (!chosen.includes(name)) {
        others.push(name);
        continue;
      }
      const picked = command.backendFlags?.map((flag) => `--${flag} ${name}`).join(' or ') ?? `--backend ${name}`;
      lines.push('', `Options of ${picked}:`, ...table(rows));
    }
    const runsOn = command.backends;
    const listed = runsOn === undefined ? others : others.filter((name) => runsOn.includes(name));
    if (listed.length > 0) {
      const pick = `--${command.backendFlags?.[0] ?? 'backend'}`;
      const example = `woolrx ${command.name} ${pick} ${listed[listed.length - 1] ?? ''} --help`;
      const which =
        chosen.length === 0
          ? 'Each backend has its own options'
          : listed.length === 1
            ? `Backend ${listed.join('')} has its own options`
            : `Backends ${listed.join(', ')} have their own options`;
      lines.push('', `${which}: ${example}`);
    }
  }
  lines.push(
    '',
    'Exit status: 0 on success or interruption (SIGINT/SIGTERM/SIGHUP), 1 on failure, 2 on bad arguments.',
  );
  return `${lines.join('\n')}\n`;
}
