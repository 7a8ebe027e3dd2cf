// Preload (contextIsolation: true, sandbox: true): a MessagePort cannot go
// through contextBridge, so hand it to the page with window.postMessage,
// which transfers it into the main world. Nothing else is exposed.
import { ipcRenderer } from 'electron';

declare const window: { postMessage(message: unknown, targetOrigin: string, transfer: readonly unknown[]): void };

ipcRenderer.on('woolrx:port', (event) => {
  window.postMessage('woolrx:port', '*', event.ports);
});
