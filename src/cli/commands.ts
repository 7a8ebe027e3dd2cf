import { dashboard } from './commands/dashboard.js';
import { demo } from './commands/demo.js';
import { list } from './commands/list.js';
import { publish } from './commands/publish.js';
import { relay } from './commands/relay.js';
import { watch } from './commands/watch.js';
import type { CliCommand } from './types.js';

/** The `woolrx` commands, by name, in usage order. */
export const commands: Readonly<Record<string, CliCommand>> = Object.freeze({
  demo,
  list,
  watch,
  publish,
  relay,
  dashboard,
});
