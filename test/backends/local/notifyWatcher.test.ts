// NotifyWatcher: real inotify watches on a real notification directory.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { localNames } from '../../../src/backends/local/names/localNames.js';
import { NotifyWatcher, closeNotify, touchNotify } from '../../../src/backends/local/notify/notify.js';
import { TMP, uniqueNamespace, waitFor } from './helpers.js';

function setup(pollInterval = 0, prompt?: () => boolean, scanned?: (watcher: NotifyWatcher) => void) {
  const names = localNames(uniqueNamespace('notify'), TMP);
  let scans = 0;
  const watcher: NotifyWatcher = new NotifyWatcher(
    names,
    pollInterval,
    () => {
      scans += 1;
      scanned?.(watcher);
    },
    prompt,
  );
  const done = (): void => {
    watcher.close();
    closeNotify(names);
    rmSync(names.notifyDir, { recursive: true, force: true });
  };
  return { names, watcher, scans: () => scans, done };
}

describe('NotifyWatcher', () => {
  it('creates the notification directory and wakes one scan per turn for touches of notify, counting each', async () => {
    const { names, watcher, scans, done } = setup();
    try {
      watcher.start();
      assert.ok(existsSync(names.notifyDir));
      touchNotify(names); // creates the file: a rename
      await waitFor(() => scans() > 0, 'a scan');
      assert.equal(watcher.take().segmentMoved, true, 'notify created: the segment may be another');
      await sleep(50);
      watcher.take();
      const before = scans();
      // Two touches back to back: inotify would merge two identical
      // directory events; the watch on the file itself keeps them apart.
      touchNotify(names);
      touchNotify(names);
      let events = 0;
      await waitFor(() => (events += watcher.take().events) >= 2, 'two events');
      await sleep(50);
      events += watcher.take().events;
      assert.equal(events, 2);
      assert.ok(scans() > before);
      assert.ok(scans() - before <= 2, 'scans are coalesced per turn');
    } finally {
      done();
    }
  });

  it('the poll timer asks for a poll, a directory check and a segment check', async () => {
    const { watcher, scans, done } = setup(20);
    try {
      watcher.start();
      watcher.take();
      await waitFor(() => scans() > 0, 'a poll tick');
      const wake = watcher.take();
      assert.equal(wake.poll, true);
      assert.equal(wake.dirChanged, true);
      assert.equal(wake.segmentMoved, true);
    } finally {
      done();
    }
  });

  it('recheckDir(): follows a replaced directory, and answers the request to check it', async () => {
    const { names, watcher, scans, done } = setup();
    try {
      watcher.start();
      assert.equal(watcher.recheckDir(), false, 'nothing changed');
      rmSync(names.notifyDir, { recursive: true });
      // (A file system may hand a freed inode number straight to the next
      // directory: let a placeholder take it, so the replacement differs.)
      mkdirSync(`${names.notifyDir}-placeholder`);
      mkdirSync(names.notifyDir);
      rmSync(`${names.notifyDir}-placeholder`, { recursive: true });
      assert.equal(watcher.recheckDir(), true);
      assert.equal(watcher.take().dirChanged, false);
      await sleep(20);
      const before = scans();
      closeNotify(names);
      touchNotify(names);
      await waitFor(() => scans() > before, 'a scan from the new directory');
    } finally {
      done();
    }
  });

  it('follows its directory removed and made again, even under the same inode number (ext4 reuses them at once)', async () => {
    const { names, watcher, scans, done } = setup();
    try {
      watcher.start();
      const ino = statSync(names.notifyDir).ino;
      // The last one out removes the directory; the next publisher makes it again.
      rmSync(names.notifyDir, { recursive: true });
      mkdirSync(names.notifyDir);
      const reused = statSync(names.notifyDir).ino === ino;
      await waitFor(() => watcher.take().dirChanged, 'the removal seen');
      assert.equal(watcher.recheckDir(), true, `watched again (inode ${reused ? 'reused' : 'new'})`);
      await sleep(20);
      watcher.take();
      const before = scans();
      closeNotify(names);
      touchNotify(names);
      await waitFor(() => scans() > before && watcher.take().events > 0, 'a notification from the new directory');
    } finally {
      done();
    }
  });

  it('scans a notification at once while prompt; the others read with it wait for the turn, in one scan', async () => {
    for (const prompt of [true, false]) {
      // What each scan took: the notifications it was woken for.
      const took: number[] = [];
      let armed = false;
      const { names, watcher, done } = setup(
        0,
        // Prompt until a scan runs: as a watch whose scan read records ahead of their notifications.
        () => prompt && armed && took.length === 0,
        (w) => {
          if (armed) took.push(w.take().events);
        },
      );
      try {
        watcher.start();
        touchNotify(names); // creates the file
        await sleep(50);
        watcher.take();
        armed = true;
        // Both touches are queued before the loop reads either: one inotify read brings both.
        touchNotify(names);
        touchNotify(names);
        await waitFor(() => took.reduce((a, b) => a + b, 0) >= 2, 'both notifications taken');
        await sleep(50);
        assert.deepEqual(
          took,
          prompt ? [1, 1] : [2],
          prompt
            ? 'the first is scanned before the second is delivered; the second waits for the end of the turn'
            : 'not prompt: one scan per turn, for both',
        );
      } finally {
        done();
      }
    }
  });

  it('close(): no scan after it, even one already scheduled', async () => {
    const { names, watcher, scans, done } = setup(10);
    try {
      watcher.start();
      watcher.schedule();
      watcher.close();
      touchNotify(names);
      await sleep(60);
      assert.equal(scans(), 0);
    } finally {
      done();
    }
  });
});
