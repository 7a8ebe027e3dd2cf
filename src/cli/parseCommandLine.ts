import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import { DEFAULT_BACKEND, backends as defaultBackends } from './backends.js';
import { commands as defaultCommands } from './commands.js';
import { commonFlags } from './commonFlags.js';
import { didYouMean } from './didYouMean.js';
import type { CliBackend, CliCommand, CliFlags, CliValues, CommandLine } from './types.js';
import { UsageError } from './UsageError.js';

/** The commands and backends the CLI knows; tests may pass their own. */
export interface CliRegistry {
  readonly commands: Readonly<Record<string, CliCommand>>;
  readonly backends: Readonly<Record<string, CliBackend>>;
}

function toParseArgsOptions(flags: CliFlags): NonNullable<ParseArgsConfig['options']> {
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const [name, flag] of Object.entries(flags)) {
    options[name] = {
      type: flag.type,
      ...(flag.short === undefined ? {} : { short: flag.short }),
      ...(flag.multiple === true ? { multiple: true } : {}),
    };
  }
  return options;
}

/**
 * node:util's messages in the CLI's words: one line, naming the flag by its
 * long name, free of parseArgs' internals (`argument missing`, `ambiguous`).
 */
function parseArgsMessage(error: unknown, flags: CliFlags): string {
  if (!(error instanceof Error)) return String(error);
  const { code } = error as NodeJS.ErrnoException;
  const quoted = /'([^']*)'/.exec(error.message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && quoted !== undefined) {
    const option = quoted.split('=')[0] ?? quoted;
    const long = /^--([^=]+)$/.exec(option)?.[1];
    const shown = Object.entries(flags).flatMap(([name, flag]) => (flag.hidden === true ? [] : [name]));
    return `unknown option ${option}${long === undefined ? '' : suggestion(long, shown, '--')}`;
  }
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL' && quoted !== undefined) {
    return `unexpected argument ${JSON.stringify(quoted)}`;
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && quoted !== undefined) {
    const long = /--([\w-]+)/.exec(quoted)?.[1];
    const short = /^-(\w)/.exec(quoted)?.[1];
    const name =
      long ?? Object.entries(flags).find(([, flag]) => flag.short === short)?.[0] ?? quoted.replace(/^-+/, '');
    const flag = flags[name];
    if (/does not take an argument/.test(error.message)) return `--${name} takes no value`;
    const value = flag?.valueName ?? 'VALUE';
    if (/ambiguous/.test(error.message)) {
      return `--${name} needs a value (one that starts with "-" is written --${name}=${value})`;
    }
    return `--${name} needs a value (--${name} ${value})`;
  }
  return error.message.replace(/\s*\n\s*/g, ' ');
}

/** ` (did you mean "watch"?)`, or nothing. */
function suggestion(word: string, candidates: Iterable<string>, prefix = ''): string {
  const match = didYouMean(word, candidates);
  return match === undefined ? '' : ` (did you mean ${JSON.stringify(`${prefix}${match}`)}?)`;
}

function has(record: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(record, key);
}

/**
 * Interprets `woolrx`'s arguments (without `node` and the script): the
 * command word first, then its flags, the common ones (`--namespace`,
 * `--backend`, `--help`) and those of the chosen backend. Pure: touches
 * no backend, prints nothing.
 *
 * @example
 * parseCommandLine(['watch', '--namespace', 'pool', '--json']);
 * // { kind: 'run', command: watch, backendName: 'local', namespace: 'pool', values: {...} }
 * parseCommandLine(['--version']); // { kind: 'version' }
 *
 * @param argv The arguments.
 * @param registry The known commands and backends.
 * @returns Help, version, or a command to run with its validated values.
 * @throws {UsageError} For an unknown command or flag, a missing value or
 * required flag, an unknown backend, or a flag of another backend.
 * @throws {TypeError} From the command's own validation (e.g. a bad uid).
 */
export function parseCommandLine(
  argv: readonly string[],
  registry: CliRegistry = { commands: defaultCommands, backends: defaultBackends },
): CommandLine {
  const [first, ...rest] = argv;
  if (first === undefined) throw new UsageError('missing command');
  if (first === '-h' || first === '--help') {
    if (rest.length > 0) throw new UsageError(`unexpected argument after ${first}: ${JSON.stringify(rest[0])}`);
    return { kind: 'help' };
  }
  if (first === '-V' || first === '--version') {
    if (rest.length > 0) throw new UsageError(`unexpected argument after ${first}: ${JSON.stringify(rest[0])}`);
    return { kind: 'version' };
  }
  if (first === 'help') {
    if (rest.length === 0) return { kind: 'help' };
    const name = rest[0] ?? '';
    if (rest.length > 1 || !has(registry.commands, name)) {
      throw new UsageError(
        `unknown command ${JSON.stringify(rest.join(' '))}` +
          (rest.length > 1 ? '' : suggestion(name, Object.keys(registry.commands))),
      );
    }
    return { kind: 'help', command: registry.commands[name] as CliCommand };
  }
  if (first.startsWith('-')) throw new UsageError(`expected a command before ${JSON.stringify(first)}`);
  if (!has(registry.commands, first)) {
    throw new UsageError(
      `unknown command ${JSON.stringify(first)}${suggestion(first, Object.keys(registry.commands))}`,
    );
  }
  const command = registry.commands[first] as CliCommand;

  // Every backend's flags parse; those of a backend not chosen are refused below.
  const backendFlagOwner = new Map<string, string>();
  const allFlags: Record<string, CliFlags[string]> = { ...commonFlags, ...command.flags };
  for (const [backendName, backend] of Object.entries(registry.backends)) {
    for (const [flagName, flag] of Object.entries(backend.flags)) {
      if (!has(allFlags, flagName)) {
        allFlags[flagName] = flag;
        backendFlagOwner.set(flagName, backendName);
      }
    }
  }

  let values: CliValues;
  try {
    ({ values } = parseArgs({
      args: [...rest],
      options: toParseArgsOptions(allFlags),
      strict: true,
      allowPositionals: false,
    }) as { values: CliValues });
  } catch (error) {
    if (rest.includes('--help') || rest.includes('-h')) return { kind: 'help', command };
    throw new UsageError(parseArgsMessage(error, allFlags), command);
  }
  if (values['help'] === true) {
    const named = (command.backendFlags ?? ['backend'])
      .map((flag) => values[flag])
      .filter((name): name is string => typeof name === 'string' && has(registry.backends, name));
    return named.length === 0 ? { kind: 'help', command } : { kind: 'help', command, backends: [...new Set(named)] };
  }

  const known = Object.keys(registry.backends).join(', ');
  const chosen: string[] = [];
  if (command.backendFlags === undefined) {
    const name = typeof values['backend'] === 'string' ? values['backend'] : DEFAULT_BACKEND;
    if (!has(registry.backends, name)) {
      throw new UsageError(
        `unknown backend ${JSON.stringify(name)}` +
          (suggestion(name, Object.keys(registry.backends)) || ` (known: ${known})`),
        command,
      );
    }
    chosen.push(name);
  } else {
    const picks = command.backendFlags.map((flag) => `--${flag}`).join(' and ');
    if (values['backend'] !== undefined)
      throw new UsageError(`--backend does not apply to ${command.name}; name the backends with ${picks}`, command);
    for (const flag of command.backendFlags) {
      const name = values[flag];
      if (typeof name !== 'string') throw new UsageError(`missing --${flag} (one of ${known})`, command);
      if (!has(registry.backends, name)) {
        throw new UsageError(
          `unknown backend ${JSON.stringify(name)} for --${flag}` +
            (suggestion(name, Object.keys(registry.backends)) || ` (known: ${known})`),
          command,
        );
      }
      if (!chosen.includes(name)) chosen.push(name);
    }
  }
  const backendName = chosen[0] as string;
  const backend = registry.backends[backendName] as CliBackend;
  for (const [flagName, owner] of backendFlagOwner) {
    if (
      values[flagName] !== undefined &&
      !chosen.some((name) => has((registry.backends[name] as CliBackend).flags, flagName))
    ) {
      const picks = command.backendFlags?.map((flag) => `--${flag}`).join(' nor ');
      throw new UsageError(
        picks === undefined
          ? `--${flagName} is an option of --backend ${owner}, not ${backendName}`
          : `--${flagName} is an option of ${owner}, and neither ${picks} is ${owner}`,
        command,
      );
    }
  }

  const namespace = typeof values['namespace'] === 'string' ? values['namespace'] : command.defaultNamespace?.();
  if (namespace === undefined) throw new UsageError('missing --namespace', command);
  try {
    command.validate?.(values);
  } catch (error) {
    if (error instanceof UsageError || error instanceof TypeError) {
      throw new UsageError(error.message, command);
    }
    throw error;
  }
  return { kind: 'run', command, backendName, backend, namespace, values };
}
