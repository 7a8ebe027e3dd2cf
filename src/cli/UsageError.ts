import type { CliCommand } from './types.js';

/**
 * Bad command-line arguments: `woolrx` prints the message and the usage on
 * stderr and exits with status 2.
 */
export class UsageError extends Error {
  /** The command whose usage to show; the main usage when absent. */
  readonly command: CliCommand | undefined;

  /**
   * @param message One line naming the bad argument.
   * @param command The command whose usage to show.
   */
  constructor(message: string, command?: CliCommand) {
    super(message);
    this.name = 'UsageError';
    this.command = command;
  }
}
