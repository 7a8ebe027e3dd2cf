// Renderer (bundled for the page): no Node built-in, only the core entry and
// the bridge. The main process's discovery arrives on the port the preload
// hands over, as a read-only DiscoveryReader.
import type { WorkerSnapshot } from 'woolrx';
import { discoveryFrom, type BridgePort } from 'woolrx/bridge';

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

function show(text: string): void {
  const list = document.getElementById('gpu-workers');
  if (list !== null) list.textContent = text;
}

function render(snapshot: WorkerSnapshot): void {
  const lines = [...snapshot.values()].map((worker) => `${worker.address}  ${worker.tags.join(',')}`);
  show(lines.join('\n') || '(no GPU worker)');
}

window.addEventListener('message', (event) => {
  if (event.source !== window || event.data !== 'woolrx:port') return;
  const [port] = event.ports;
  if (port === undefined) return;
  // snapshots() emits nothing until the main process's initial state is
  // complete, then all of it at once: "loading" until then, never a partial list.
  show('(loading…)');
  const subscription = discoveryFrom(port)
    .snapshots((worker) => worker.tags.includes('gpu'))
    .subscribe({ next: render, error: (error: unknown) => console.error('worker stream ended', error) });
  window.addEventListener('pagehide', () => subscription.unsubscribe());
});
