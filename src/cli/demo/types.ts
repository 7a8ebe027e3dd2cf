/** What the demo tells one of its worker processes to publish (the pid is the process's own). */
export interface DemoWorkerSpec {
  readonly uid: string;
  readonly address: string;
  readonly tags: readonly string[];
  readonly extra: Readonly<Record<string, string>>;
}

/** A change the demo sends a worker process (one JSON line on its stdin). */
export interface DemoWorkerUpdate {
  readonly tags?: readonly string[];
  readonly extra?: Readonly<Record<string, string>>;
}

/** The settings of one demo run. */
export interface DemoSettings {
  /** How many workers to start (a replacement comes on top). */
  readonly workers: number;
  /** How long the demo stays live after its scenario, counted from its start (ms). */
  readonly durationMs: number;
  /** Redraw a table (a terminal) instead of printing NDJSON. */
  readonly tty: boolean;
}
