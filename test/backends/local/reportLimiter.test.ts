// The rate limiter of a local subscriber's diagnostics: a problem that may
// be an instant's state (a header being written) is reported only once it
// has lasted, and sightings on either side of a healthy look do not add up.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { REPORT_INTERVAL, ReportLimiter, TRANSIENT_GRACE } from '../../../src/backends/local/LocalWatch.js';

describe('ReportLimiter', () => {
  it('reports a problem at its first sighting by default, then not again for REPORT_INTERVAL', () => {
    const limiter = new ReportLimiter();
    assert.equal(limiter.seen('a', 1, 0, 0), true);
    assert.equal(limiter.seen('a', 1, 0, 10), false);
    assert.equal(limiter.seen('a', 1, 0, REPORT_INTERVAL - 1), false);
    assert.equal(limiter.seen('a', 1, 0, REPORT_INTERVAL), true);
  });

  it('a new key is reported at once', () => {
    const limiter = new ReportLimiter();
    assert.equal(limiter.seen('a', 1, 0, 0), true);
    assert.equal(limiter.seen('b', 1, 0, 1), true);
  });

  it("an instant's state: reported once seen twice in a row over TRANSIENT_GRACE, not for sightings close together", () => {
    const limiter = new ReportLimiter();
    const t0 = 1_000;
    for (let t = t0; t < t0 + TRANSIENT_GRACE; t += 50) assert.equal(limiter.seen('x', 2, TRANSIENT_GRACE, t), false);
    assert.equal(limiter.seen('x', 2, TRANSIENT_GRACE, t0 + TRANSIENT_GRACE), true);
    assert.equal(limiter.seen('x', 2, TRANSIENT_GRACE, t0 + TRANSIENT_GRACE + 1), false);
  });

  it('a single sighting, however old, is not two', () => {
    const limiter = new ReportLimiter();
    assert.equal(limiter.seen('x', 2, TRANSIENT_GRACE, 0), false);
    assert.equal(limiter.seen('x', 2, TRANSIENT_GRACE, 10 * TRANSIENT_GRACE), true);
    const other = new ReportLimiter();
    assert.equal(other.seen('x', 2, 0, 0), false);
  });

  it('clear() ends the run: sightings on either side of it are not one lasting problem', () => {
    const limiter = new ReportLimiter();
    assert.equal(limiter.seen('x', 2, TRANSIENT_GRACE, 0), false);
    limiter.clear();
    assert.equal(limiter.seen('x', 2, TRANSIENT_GRACE, 5 * TRANSIENT_GRACE), false);
    assert.equal(limiter.seen('x', 2, TRANSIENT_GRACE, 5 * TRANSIENT_GRACE + 1), false);
    assert.equal(limiter.seen('x', 2, TRANSIENT_GRACE, 6 * TRANSIENT_GRACE), true);
  });
});
