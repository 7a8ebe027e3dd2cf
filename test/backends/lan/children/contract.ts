/**
 * The backend contract suite against lanDiscovery. Real mDNS: run only
 * inside a network namespace, by test/backends/lan/contract.test.ts
 * (`ip netns exec <ns> node --import tsx --test this-file`); never directly.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { lanDiscovery } from '../../../../src/backends/lan/lanDiscovery.js';
import { describeDiscoveryContract } from '../../../contract/discoveryContract.js';

if (process.env.WOOLRX_LAN_NETNS === undefined) {
  throw new Error(
    'children/contract.ts opens mDNS sockets: run it through test/backends/lan/contract.test.ts (inside a network namespace)',
  );
}

function openSockets(): number {
  return process.getActiveResourcesInfo().filter((kind) => kind === 'UDPWrap').length;
}

// The contract holds with signed records too (every publisher and subscriber of a run shares the key).
const SIGNING_KEY = randomBytes(32);

for (const [probe, signed] of [
  [false, false],
  [true, false],
  [false, true],
] as const) {
  describeDiscoveryContract(
    `lan (probe: ${String(probe)}${signed ? ', signingKey' : ''})`,
    () => ({
      // The defaults (unknownUpdate: 'reject', syncWindow: 1000): the contract holds without opting in.
      discovery: (namespace) =>
        lanDiscovery(namespace, { probe, expireAfter: 10_000, ...(signed ? { signingKey: SIGNING_KEY } : {}) }),
    }),
    {
      // Each publisher is the responder of its own workers (see Discovery in src/discovery/types.ts).
      ownership: 'responder',
      settleMs: 150,
      // A new subscription learns the current workers from the answers to its
      // first query (a network round trip), not in a synchronous burst.
      subscribeDelayMs: 150,
      timeoutMs: 5000,
      assertReleased: async () => {
        // Every subscription and publisher of the test is closed: no mDNS socket may stay open.
        for (let i = 0; i < 50 && openSockets() > 0; i++) await sleep(20);
        if (openSockets() > 0) throw new Error(`${openSockets()} UDP socket(s) still open after release`);
      },
    },
  );
}
