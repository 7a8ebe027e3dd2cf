// Electron main process: the backends live here (Node built-ins, shared
// memory, sockets). Each window gets a MessagePort with the discovery's
// read contract (events, synced, snapshots) on it.
import { app, BrowserWindow, MessageChannelMain } from 'electron';
import { fileURLToPath } from 'node:url';
import { localDiscovery } from 'woolrx/local';
import { exposeWorkers } from 'woolrx/bridge';

// Each subscription a window makes gets its own watch of the namespace,
// released when the window unsubscribes or closes.
const discovery = localDiscovery('my-pool');

function openWindow(): void {
  const window = new BrowserWindow({
    width: 1000,
    height: 600,
    webPreferences: {
      preload: fileURLToPath(new URL('./preload.cjs', import.meta.url)), // preload.ts, bundled to CommonJS
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
    },
  });
  const { port1, port2 } = new MessageChannelMain();
  const exposure = exposeWorkers(discovery, port1);
  window.webContents.on('did-finish-load', () => {
    window.webContents.postMessage('woolrx:port', null, [port2]);
  });
  window.on('closed', () => {
    exposure.unsubscribe();
    port1.close();
  });
  void window.loadFile(fileURLToPath(new URL('./index.html', import.meta.url)));
}

void app.whenReady().then(openWindow);
app.on('window-all-closed', () => app.quit());
