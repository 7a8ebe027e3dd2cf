import type { DiscoveryEvent } from '../../events/types.js';
import { applyTableEvent } from './applyTableEvent.js';
import { redrawFrame } from './redrawFrame.js';
import { renderTable } from './renderTable.js';
import type { TableState } from './types.js';

/** A terminal to draw on: a writable stream with the size of a TTY. */
export interface TableTerminal {
  write(text: string): unknown;
  readonly columns?: number | undefined;
  readonly rows?: number | undefined;
}

/** Options of {@link LiveTable}. */
export interface LiveTableOptions {
  /** The first line of every frame. */
  readonly title?: string | undefined;
  /** The clock (ms since the epoch). Default `Date.now`. */
  readonly now?: () => number;
  /** Redraw period for the age columns, in ms. Default 1000. */
  readonly refreshMs?: number;
  /** How many of the latest notes to show. Default 4. */
  readonly maxNotes?: number;
  /**
   * Start in the loading state (the count line says `loading workers…`)
   * until {@link LiveTable.synced} is called. Default `false`.
   */
  readonly loading?: boolean;
}

const HIDE_CURSOR = '\u001b[?25l';
const SHOW_CURSOR = '\u001b[?25h';

/**
 * A worker table redrawn in place on a terminal: feed it events with
 * {@link LiveTable.apply}, notes with {@link LiveTable.note}; it redraws
 * at most once per tick and once a second (for the ages), and
 * {@link LiveTable.close} draws the last frame and gives the cursor back.
 * Layout: {@link renderTable}; escape codes: {@link redrawFrame}.
 *
 * @example
 * const table = new LiveTable(process.stdout, { title: 'namespace pool' });
 * const subscription = discovery.events().subscribe((event) => table.apply(event));
 * // later
 * subscription.unsubscribe();
 * table.close();
 */
export class LiveTable {
  private tableState: TableState = new Map();
  private readonly notes: string[] = [];
  private drawnLines = 0;
  private pending = false;
  private closed = false;
  private loading: boolean;
  private statusText: string | undefined;
  private readonly timer: ReturnType<typeof setInterval>;
  private readonly now: () => number;

  /**
   * @param terminal Where to draw (a TTY stream).
   * @param options Title, clock, refresh period, notes kept.
   */
  constructor(
    private readonly terminal: TableTerminal,
    private readonly options: LiveTableOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.loading = options.loading ?? false;
    terminal.write(HIDE_CURSOR);
    this.timer = setInterval(() => this.draw(), options.refreshMs ?? 1000);
    this.timer.unref();
    this.draw();
  }

  /** The live workers. */
  get state(): TableState {
    return this.tableState;
  }

  /** Applies an event and schedules a redraw. */
  apply(event: DiscoveryEvent): void {
    this.tableState = applyTableEvent(this.tableState, event, this.now());
    this.schedule();
  }

  /** The initial state is complete: from now on an empty table reads `0 workers`. Schedules a redraw. */
  synced(): void {
    this.loading = false;
    this.schedule();
  }

  /**
   * The backend's state, shown at the head of the title line (e.g. `etcd
   * unreachable at …, retrying; start etcd or pass --endpoints URL`);
   * `undefined` clears it. Schedules a redraw.
   */
  status(text: string | undefined): void {
    if (text === this.statusText) return;
    this.statusText = text;
    this.schedule();
  }

  /** Adds a note under the table (the latest few are shown) and schedules a redraw. */
  note(text: string): void {
    this.notes.push(text);
    this.notes.splice(0, Math.max(0, this.notes.length - (this.options.maxNotes ?? 4)));
    this.schedule();
  }

  /** Draws the last frame, stops the timer, shows the cursor. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.draw();
    this.closed = true;
    clearInterval(this.timer);
    this.terminal.write(SHOW_CURSOR);
  }

  private schedule(): void {
    if (this.pending || this.closed) return;
    this.pending = true;
    setImmediate(() => {
      this.pending = false;
      this.draw();
    });
  }

  private draw(): void {
    if (this.closed) return;
    const lines = renderTable(this.tableState, {
      width: this.terminal.columns ?? 80,
      height: this.terminal.rows,
      now: this.now(),
      title:
        this.statusText === undefined
          ? this.options.title
          : `⚠ ${this.statusText}${this.options.title === undefined ? '' : ` · ${this.options.title}`}`,
      notes: this.notes,
      loading: this.loading,
    });
    this.terminal.write(redrawFrame(this.drawnLines, lines));
    this.drawnLines = lines.length;
  }
}
