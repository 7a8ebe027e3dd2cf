// Runs every docs diagram (marbles/diagrams.ts) through the real operator: the
// pictures in docs/images/marbles/ are drawn from these very marble strings.
import { describe, it } from 'node:test';
import { diagrams } from './diagrams.js';
import { testScheduler } from './helpers.js';

describe('operator diagrams of the docs (marbles)', () => {
  for (const diagram of diagrams) {
    it(`${diagram.name}: ${diagram.title}`, () => {
      testScheduler().run((helpers) => diagram.verify(helpers));
    });
  }
});
