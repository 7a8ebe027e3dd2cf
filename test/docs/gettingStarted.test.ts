// docs/getting-started.md shows docs/examples/firstPipeline.ts verbatim (with
// the package name for the import); this runs it and checks the page is current.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { firstPipeline } from '../../docs/examples/firstPipeline.js';

describe('docs/getting-started.md', () => {
  it('its first pipeline sees GPU workers come and go', async () => {
    assert.deepEqual(await firstPipeline(), ['10.0.0.1:50051', '10.0.0.1:50051, 10.0.0.2:50051', '(none)']);
  });

  it('shows the example exactly as committed', () => {
    const example = readFileSync(new URL('../../docs/examples/firstPipeline.ts', import.meta.url), 'utf8').replace(
      "from '../../src/index.js'",
      "from 'woolrx'",
    );
    const page = readFileSync(new URL('../../docs/getting-started.md', import.meta.url), 'utf8');
    assert.ok(
      page.includes(`\`\`\`ts\n${example}\`\`\``),
      'docs/getting-started.md does not show docs/examples/firstPipeline.ts as it is',
    );
  });
});
