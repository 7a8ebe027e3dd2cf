import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { repoRoot, sweep, uniqueNamespace, woolrx } from './children.js';
import type { Child } from './children.js';

// End to end: `woolrx dashboard` and two `woolrx publish` workers as real
// processes on the local backend, the page in Debian's headless Chromium.

const children: Child[] = [];
const used: { namespace: string; uids: string[] }[] = [];
const profile = mkdtempSync(join(tmpdir(), 'woolrx-chromium-'));
after(async () => {
  for (const child of children) await child.stop('SIGKILL', 5000);
  rmSync(profile, { recursive: true, force: true });
  for (const { namespace, uids } of used) sweep(namespace, uids);
});

describe('woolrx dashboard in headless Chromium', () => {
  it('shows workers as they appear, with counts by tag, and removes one that leaves; saves a screenshot', async () => {
    const namespace = uniqueNamespace('dashboard');
    const uids = [randomUUID(), randomUUID()];
    used.push({ namespace, uids });
    const server = woolrx(['dashboard', '--namespace', namespace, '--port', '0']);
    children.push(server);
    const url = await server.line();
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/$/);

    const context = await chromium.launchPersistentContext(profile, {
      executablePath: '/usr/bin/chromium',
      headless: true,
      viewport: { width: 1100, height: 420 },
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      await page.goto(url);
      await page.locator('#status.live').waitFor({ timeout: 15_000 });
      assert.equal(await page.locator('#namespace').textContent(), namespace);
      // How long the page has seen a worker, named as the terminal table names it (SEEN).
      assert.deepEqual(await page.locator('thead th').allTextContents(), [
        'UID',
        'Address',
        'PID',
        'Version',
        'Tags',
        'Extra',
        'Seen',
        'Last event',
      ]);
      assert.equal(await page.locator('#rows tr').count(), 0);
      // Live means synced: an empty pool says so, rather than "loading".
      assert.equal(await page.locator('#empty').textContent(), 'No workers.');

      const publishers = uids.map((uid, index) =>
        woolrx([
          'publish',
          '-n',
          namespace,
          '--uid',
          uid,
          '-a',
          `127.0.0.1:${9100 + index}`,
          '--tag',
          index === 0 ? 'gpu' : 'cpu',
          '--tag',
          'pool',
          '--extra',
          `zone=z${index}<b>x</b>`,
        ]),
      );
      children.push(...publishers);
      for (const [index, publisher] of publishers.entries()) assert.equal(await publisher.line(), uids[index]);

      for (const uid of uids) await page.locator(`#rows tr[data-uid="${uid}"]`).waitFor({ timeout: 15_000 });
      const first = page.locator(`#rows tr[data-uid="${uids[0]}"] td`);
      assert.equal(await first.nth(0).textContent(), uids[0]?.slice(0, 8));
      assert.equal(await first.nth(1).textContent(), '127.0.0.1:9100');
      assert.equal(await first.nth(2).textContent(), String(publishers[0]?.process.pid));
      assert.equal(await first.nth(4).textContent(), 'gpupool');
      // Record text is text, never markup.
      assert.equal(await first.nth(5).textContent(), 'zone=z0<b>x</b>');
      assert.equal(await page.locator('#rows b').count(), 0);
      assert.equal(await page.locator('#total').textContent(), '2 workers');
      assert.equal(await page.locator('#counts').textContent(), 'cpu 1 · gpu 1 · pool 2');

      mkdirSync(join(repoRoot, 'artifacts'), { recursive: true });
      const screenshot = join(repoRoot, 'artifacts', 'dashboard.png');
      await page.screenshot({ path: screenshot, fullPage: true });
      assert.ok(statSync(screenshot).size > 1000);

      // One worker leaves: its row is marked dropped, then removed.
      assert.deepEqual(await publishers[1]?.stop('SIGTERM'), { code: 0, signal: null });
      await page.locator(`#rows tr.dropped[data-uid="${uids[1]}"]`).waitFor({ timeout: 15_000 });
      assert.equal(await page.locator('#total').textContent(), '1 worker');
      await page.locator(`#rows tr[data-uid="${uids[1]}"]`).waitFor({ state: 'detached', timeout: 15_000 });
      assert.equal(await page.locator('#counts').textContent(), 'gpu 1 · pool 1');
      await page.screenshot({ path: join(repoRoot, 'artifacts', 'dashboard-after-drop.png'), fullPage: true });
      await page.close();
    } finally {
      await context.close();
    }
    for (const publisher of children.slice(1)) await publisher.stop('SIGTERM');
    assert.deepEqual(await server.stop('SIGINT'), { code: 0, signal: null });
    assert.equal(server.stderr, '');
  });
});
