// Renderer (bundled for the page): no Node built-in, only the core entry and
// the bridge. The worker events arrive on the port the preload hands over.
import { filterWorkers, toSnapshots, type WorkerSnapshot } from 'woolrx';
import { workersFrom, type BridgePort } from 'woolrx/bridge';

// The DOM types the example needs (the repository compiles without the DOM lib).
interface PortMessageEvent {
  readonly data: unknown;
  readonly source: unknown;
  readonly ports: readonly BridgePort[];
}
declare const window: {
  addEventListener(type: 'message', listener: (event: PortMessageEvent) => void): void;
  addEventListener(type: 'pagehide', listener: () => void): void;
};
declare const document: { getElementById(id: string): { textContent: string | null } | null };

function render(snapshot: WorkerSnapshot): void {
  const lines = [...snapshot.values()].map((worker) => `${worker.address}  ${worker.tags.join(',')}`);
  const list = document.getElementById('gpu-workers');
  if (list !== null) list.textContent = lines.join('\n') || '(no GPU worker)';
}

window.addEventListener('message', (event) => {
  if (event.source !== window || event.data !== 'woolrx:port') return;
  const [port] = event.ports;
  if (port === undefined) return;
  const subscription = workersFrom(port)
    .pipe(
      filterWorkers((worker) => worker.tags.includes('gpu')),
      toSnapshots(),
    )
    .subscribe({ next: render, error: (error: unknown) => console.error('worker stream ended', error) });
  window.addEventListener('pagehide', () => subscription.unsubscribe());
});
