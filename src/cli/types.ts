import type { Discovery } from '../discovery/types.js';

/** One command-line flag, as the CLI declares it (and documents it in usage). */
export interface CliFlag {
  /** `'string'` takes a value; `'boolean'` is a switch. */
  readonly type: 'string' | 'boolean';
  /** A one-letter alias (`-n`). */
  readonly short?: string;
  /** May be given more than once; the values are collected in order. */
  readonly multiple?: boolean;
  /** How the value is shown in usage (`NS`, `HOST:PORT`). */
  readonly valueName?: string;
  /** One line for the usage text. */
  readonly description: string;
  /** Internal: accepted, but never shown in usage nor suggested for a typo. */
  readonly hidden?: boolean;
  /**
   * The commands the flag means something to (a backend's publisher-only
   * flag: `--ttl`); shown only in their usage. Every command accepts it.
   */
  readonly commands?: readonly string[];
}

/** Flags by long name (without the leading `--`). */
export type CliFlags = Readonly<Record<string, CliFlag>>;

/** Parsed flag values by long name: a string, a boolean, or a list for `multiple` flags. */
export type CliValues = Readonly<Record<string, string | boolean | readonly string[] | undefined>>;

/**
 * A `--backend` choice: its own flags (valid only with it) and a factory.
 * Adding a backend to the CLI is one entry in {@link backends}.
 */
export interface CliBackend {
  /** One line for the usage text. */
  readonly summary: string;
  /** Flags this backend accepts, e.g. `--endpoints` for etcd. */
  readonly flags: CliFlags;
  /**
   * Builds the discovery for a namespace from the parsed flags (the
   * backend's own and the common ones). Throws a {@link UsageError} or a
   * `TypeError` for a bad flag value or namespace.
   */
  readonly create: (namespace: string, values: CliValues) => Discovery | Promise<Discovery>;
  /**
   * How long, in ms, a command that must end (`list`) waits for a backend
   * that keeps failing to answer before it gives up — for a backend that
   * retries forever while it cannot be reached (etcd). A backend without it
   * bounds its own waits (local: the lock timeout; lan: the sync window).
   */
  readonly reachTimeout?: (values: CliValues) => number;
  /**
   * The namespaces that exist, when the backend can tell cheaply (local: on
   * this host), for the hint of a `list` that finds nothing; `undefined`
   * when it cannot tell.
   */
  readonly namespaces?: (values: CliValues) => readonly string[] | undefined;
}

/** Where a command writes, and what tells it to stop. */
export interface CliIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  /** Aborted on SIGINT/SIGTERM (or when stdout goes away). */
  readonly signal: AbortSignal;
  /** The wall clock, for timestamps in readable output. */
  readonly now?: () => Date;
}

/** What a command receives once its arguments are valid. */
export interface CommandContext extends CliIo {
  /** The command's parsed flag values. */
  readonly values: CliValues;
  /** The namespace (`--namespace`). */
  readonly namespace: string;
  /** The chosen backend's {@link CliBackend.namespaces}, when it has one. */
  readonly namespaces?: () => readonly string[] | undefined;
  /** The chosen backend's {@link CliBackend.reachTimeout}, when it has one. */
  readonly reachTimeout?: number;
  /** Builds the discovery for the chosen backend (lazily: a command may fail first). */
  readonly discovery: () => Promise<Discovery>;
  /**
   * Builds a discovery of a named backend for a namespace, from the
   * command's flags (or `values`): for a command that picks its backends
   * itself ({@link CliCommand.backendFlags}).
   */
  readonly discoveryOf: (backend: string, namespace: string, values?: CliValues) => Promise<Discovery>;
}

/** One `woolrx <command>`. */
export interface CliCommand {
  /** The command word. */
  readonly name: string;
  /** One line for the usage text. */
  readonly summary: string;
  /** The synopsis after `woolrx <name>`. */
  readonly synopsis: string;
  /** The command's own flags (besides the common and backend ones). */
  readonly flags: CliFlags;
  /**
   * The command's own flags that each name a backend (`relay`'s `--from`
   * and `--to`), in place of `--backend`: each is required, must name a
   * known backend, and the flags of every backend they name are accepted.
   */
  readonly backendFlags?: readonly string[];
  /** The only backends the command runs on (`demo`: local); every one when absent. */
  readonly backends?: readonly string[];
  /**
   * The namespace to use when `--namespace` is not given; without it,
   * `--namespace` is required.
   */
  readonly defaultNamespace?: () => string;
  /**
   * Checks the parsed values before any backend is touched; throws a
   * {@link UsageError} (or a `TypeError`) for bad arguments.
   */
  readonly validate?: (values: CliValues) => void;
  /** Runs the command to completion; resolves with the exit code. */
  readonly run: (context: CommandContext) => Promise<number>;
}

/** What {@link parseCommandLine} makes of an argument vector. */
export type CommandLine =
  | {
      readonly kind: 'help';
      readonly command?: CliCommand;
      /** The backends the command line names (`--backend etcd --help`): their options are shown. */
      readonly backends?: readonly string[];
    }
  | { readonly kind: 'version' }
  | {
      readonly kind: 'run';
      readonly command: CliCommand;
      readonly backendName: string;
      readonly backend: CliBackend;
      readonly namespace: string;
      readonly values: CliValues;
    };
