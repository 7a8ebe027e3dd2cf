import { defer, fromEvent, map, of, take, type Observable } from 'rxjs';

/**
 * Emits once when `signal` is aborted (at once, on subscribe, if it already
 * is), then completes: the CLI's "until SIGINT/SIGTERM" as an Observable,
 * for `takeUntil` and `race`.
 *
 * @example
 * await firstValueFrom(race(aborted(signal).pipe(map(() => 0)), work$));
 *
 * @param signal The signal to watch.
 * @returns The one-shot stream.
 */
export function aborted(signal: AbortSignal): Observable<void> {
  return defer(() =>
    signal.aborted
      ? of(undefined)
      : fromEvent(signal, 'abort').pipe(
          take(1),
          map(() => undefined),
        ),
  );
}
