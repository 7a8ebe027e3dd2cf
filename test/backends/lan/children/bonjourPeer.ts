/**
 * A third-party mDNS peer for the LAN tests: bonjour-service, run inside a
 * network namespace (never directly). `browse <namespace>` reports what a
 * bonjour-service Browser sees (`up`, `txt-update`, `srv-update`, `down`);
 * `publish <namespace> <uid> <port> <txt json>` advertises one service the way
 * bonjour-service does. JSON lines on stdout; when stdin closes it sends goodbyes (unpublishAll) and exits.
 */
import { Bonjour } from 'bonjour-service';
import { lanServiceType } from '../../../../src/backends/lan/lanServiceType.js';

const [mode, namespace = 'default', uid = '', port = '0', txt = '{}'] = process.argv.slice(2);
const type = lanServiceType(namespace)
  .replace(/^_/, '')
  .replace(/\._tcp\.local\.$/, '');
const out = (message: object): void => void process.stdout.write(`${JSON.stringify(message)}\n`);
const bonjour = new Bonjour({}, (error: unknown) => out({ ev: 'bonjour-error', message: String(error) }));

if (mode === 'browse') {
  const browser = bonjour.find({ type });
  const show = (service: { name?: string; txt?: unknown; addresses?: string[]; port?: number }): object => ({
    name: service.name,
    txt: service.txt,
    addresses: service.addresses,
    port: service.port,
  });
  browser.on('up', (service) => out({ ev: 'up', ...show(service) }));
  browser.on('down', (service) => out({ ev: 'down', ...show(service) }));
  browser.on('txt-update', (service) => out({ ev: 'txt-update', ...show(service) }));
  browser.on('srv-update', (service) => out({ ev: 'srv-update', ...show(service) }));
} else if (mode === 'publish') {
  const service = bonjour.publish({
    name: uid,
    type,
    port: Number(port),
    txt: JSON.parse(txt) as Record<string, string>,
    probe: false,
  });
  service.on('up', () => out({ ev: 'published' }));
} else {
  throw new Error(`unknown mode ${String(mode)}`);
}
process.stdin.on('end', () => bonjour.unpublishAll(() => bonjour.destroy(() => process.exit(0))));
process.stdin.resume();
out({ ev: 'ready', pid: process.pid });
