// Child process (run inside a test network namespace): one AdvertisePolicy
// (one LAN publisher's) asked for a wildcard-bound worker's address, then,
// after the parent moved the default route ("moved" on stdin), for the same
// worker again (an update) and for a new one. Prints one JSON line per answer.
// Nothing is sent: the default-route address is found by connecting a UDP socket.
import { createInterface } from 'node:readline';
import { AdvertisePolicy } from '../../../../src/backends/lan/AdvertisePolicy.js';
import { workerInfo } from '../../../../src/model/workerInfo.js';

const policy = new AdvertisePolicy(undefined, () => undefined);
const first = workerInfo({
  uid: '00000000-0000-4000-8000-00000000a001',
  address: '0.0.0.0:7100',
  pid: 1,
  version: '1',
});
const second = workerInfo({
  uid: '00000000-0000-4000-8000-00000000a002',
  address: '0.0.0.0:7101',
  pid: 1,
  version: '1',
});
console.log(JSON.stringify({ first: await policy.addressOf(first) }));
const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (line !== 'moved') continue;
  const updated = await policy.addressOf(workerInfo({ ...first, version: '2' }));
  const added = await policy.addressOf(second);
  const fresh = await new AdvertisePolicy(undefined, () => undefined).addressOf(second);
  console.log(JSON.stringify({ updated, added, fresh }));
  break;
}
lines.close();
