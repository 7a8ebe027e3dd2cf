import { randomBytes } from 'node:crypto';
import { parseDemoWorkerSpec } from '../demo/parseDemoWorkerSpec.js';
import { runDemo } from '../demo/runDemo.js';
import { runDemoWorker } from '../demo/runDemoWorker.js';
import { parseIntegerFlag } from '../parseIntegerFlag.js';
import type { CliCommand, CliValues } from '../types.js';
import { UsageError } from '../UsageError.js';

function settingsOf(values: CliValues): { workers: number; durationMs: number } {
  const workersText = values['workers'];
  const durationText = values['duration'];
  const workers = typeof workersText === 'string' ? parseIntegerFlag('workers', workersText) : 4;
  if (workers < 1 || workers > 64) throw new UsageError(`--workers: ${workers} is not from 1 to 64`);
  let durationMs = 15_000;
  if (typeof durationText === 'string') {
    const seconds = Number(durationText);
    if (durationText.trim() === '' || !Number.isFinite(seconds) || seconds <= 0 || seconds > 86_400) {
      throw new UsageError(`--duration: ${JSON.stringify(durationText)} is not a number of seconds from 0 to 86400`);
    }
    durationMs = Math.round(seconds * 1000);
  }
  return { workers, durationMs };
}

/**
 * `woolrx demo [--workers N] [--duration S]`: starts worker processes on a
 * fresh namespace of the local backend, updates, kills and replaces some
 * while a live table (or, off a terminal, NDJSON) shows the events; then
 * stops everything and prints a summary. No setup, nothing left behind.
 * `--as-worker JSON` is the mode the demo starts its worker processes in.
 */
export const demo: CliCommand = {
  name: 'demo',
  summary: 'Start, update, kill and replace local worker processes while watching them live',
  synopsis: '[--workers N] [--duration SECONDS] [--namespace NS]',
  flags: {
    workers: { type: 'string', valueName: 'N', description: 'How many worker processes to start (default 4)' },
    duration: {
      type: 'string',
      valueName: 'SECONDS',
      description: 'How long to stay live once the scenario has run (default 15)',
    },
    'as-worker': {
      type: 'string',
      valueName: 'JSON',
      description: 'Internal: run as one of the demo worker processes',
      hidden: true,
    },
  },
  backends: ['local'],
  defaultNamespace: () => `woolrx-demo-${process.pid}-${randomBytes(4).toString('hex')}`,
  validate: (values) => {
    if (values['backend'] !== undefined && values['backend'] !== 'local') {
      throw new UsageError(`the demo runs on the local backend only, not ${JSON.stringify(values['backend'])}`);
    }
    if (typeof values['as-worker'] === 'string') parseDemoWorkerSpec(values['as-worker']);
    settingsOf(values);
  },
  run: async (context) => {
    const spec = context.values['as-worker'];
    if (typeof spec === 'string') return runDemoWorker(parseDemoWorkerSpec(spec), context, process.stdin);
    const tty = (context.stdout as { isTTY?: boolean }).isTTY === true;
    return runDemo(context, { ...settingsOf(context.values), tty });
  },
};
