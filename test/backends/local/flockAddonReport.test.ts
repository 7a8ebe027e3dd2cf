// The flock addon's loader tells glibc from musl by the process report's
// header: it must ask for a report without its network section, which would
// look up the peer of every open socket synchronously (a process holding an
// etcd connection froze for the resolver's timeouts where no DNS answers).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { loadFlock } from '../../../src/backends/local/lock/flockAddon.js';

it('loads the addon with a process report that leaves the network out, and restores the report setting', () => {
  const report = process.report as typeof process.report & { excludeNetwork?: boolean };
  const original = Object.getOwnPropertyDescriptor(report, 'getReport');
  const getReport = report.getReport.bind(report);
  const seen: (boolean | undefined)[] = [];
  report.getReport = (...args: Parameters<typeof getReport>) => {
    seen.push(report.excludeNetwork);
    return getReport(...args);
  };
  try {
    assert.equal(report.excludeNetwork, false);
    loadFlock();
  } finally {
    if (original === undefined) delete (report as { getReport?: unknown }).getReport;
    else Object.defineProperty(report, 'getReport', original);
  }
  assert.deepEqual(seen, [true], 'one report, without the network section');
  assert.equal(report.excludeNetwork, false, 'the setting is restored');
});
