// The few Electron APIs the example uses, declared here because the
// `electron` package (and its binary) cannot be installed in this
// repository's CI. In an application, delete this file: `npm install
// electron` brings the real types, which these mirror.
declare module 'electron' {
  interface MessagePortMain {
    postMessage(message: unknown): void;
    on(event: 'message', listener: (messageEvent: { data: unknown; ports: MessagePortMain[] }) => void): this;
    on(event: 'close', listener: () => void): this;
    off(event: 'message' | 'close', listener: (...args: never[]) => void): this;
    start(): void;
    close(): void;
  }
  export class MessageChannelMain {
    readonly port1: MessagePortMain;
    readonly port2: MessagePortMain;
  }
  interface WebContents {
    postMessage(channel: string, message: unknown, transfer?: MessagePortMain[]): void;
    on(event: 'did-finish-load', listener: () => void): this;
  }
  export class BrowserWindow {
    constructor(options: {
      width?: number;
      height?: number;
      webPreferences: { preload: string; contextIsolation: boolean; sandbox: boolean; nodeIntegration: boolean };
    });
    readonly webContents: WebContents;
    loadFile(path: string): Promise<void>;
    on(event: 'closed', listener: () => void): this;
  }
  export const app: {
    whenReady(): Promise<void>;
    on(event: 'window-all-closed', listener: () => void): void;
    quit(): void;
  };
  export const ipcRenderer: {
    on(channel: string, listener: (event: { ports: readonly unknown[] }, ...args: unknown[]) => void): void;
  };
}
