// Runs every docs diagram (marbles/diagrams.ts) through the real operator: the
// pictures in docs/images/marbles/ are drawn from these very marble strings.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { workerTestScheduler } from '../src/testing/index.js';
import { diagrams, type Tone } from './diagrams.js';

const TONE_OF_TYPE: Readonly<Record<string, Tone>> = {
  'worker-added': 'added',
  'worker-updated': 'updated',
  'worker-dropped': 'dropped',
};

/** The colour a value must be drawn in: its event type, or a snapshot. */
function toneOf(value: unknown): Tone | undefined {
  if (value instanceof Map) return 'snapshot';
  if (typeof value === 'object' && value !== null && 'type' in value) return TONE_OF_TYPE[String(value.type)];
  return undefined;
}

describe('operator diagrams of the docs (marbles)', () => {
  for (const diagram of diagrams) {
    it(`${diagram.name}: ${diagram.title}`, () => {
      workerTestScheduler().run((helpers) => diagram.verify(helpers));
    });

    it(`${diagram.name}: every letter is drawn in the colour of what it stands for`, () => {
      const legend = new Map(diagram.legend.map((entry) => [entry.key, entry.tone]));
      for (const line of diagram.lines) {
        for (const [key, value] of Object.entries(line.values ?? {})) {
          if (!line.marbles.includes(key)) continue;
          const expected = toneOf(value);
          if (expected === undefined) continue;
          assert.equal(legend.get(key), expected, `${line.label}: ${key} stands for ${expected}`);
        }
      }
    });
  }
});
