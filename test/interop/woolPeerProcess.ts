/**
 * Starting and stopping the wool-format stand-in peer (woolpeer.py) from a
 * test: one copy for every test that runs it as a publisher.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { waitFor } from '../backends/local/helpers.js';

/** The peer script. */
export const WOOLPEER = fileURLToPath(new URL('./woolpeer.py', import.meta.url));

/** Every peer started, so a test file's `after` can kill what is left. */
export const woolPeers: ChildProcessWithoutNullStreams[] = [];

/** Kills (SIGKILL) every peer still running. */
export function killWoolPeers(): void {
  for (const peer of woolPeers) if (peer.exitCode === null) peer.kill('SIGKILL');
}

/**
 * Starts `woolpeer.py publish ...`; resolves once it printed "ready" (it has
 * registered its worker). Closing its stdin withdraws it ({@link withdrawWoolPeer}).
 * @param args The peer's arguments after the script (e.g. `['publish', '--namespace', ns, ...]`).
 * @param timeoutMs How long to wait for "ready".
 * @returns The running peer.
 */
export async function startWoolPeer(args: readonly string[], timeoutMs = 10_000): Promise<ChildProcessWithoutNullStreams> {
  const peer = spawn('python3', [WOOLPEER, ...args]);
  woolPeers.push(peer);
  let output = '';
  peer.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  peer.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitFor(() => output.includes('ready') || peer.exitCode !== null, 'wool peer ready', timeoutMs);
  assert.equal(peer.exitCode, null, `wool peer failed: ${output}`);
  return peer;
}

/**
 * Withdraws a peer's worker (closes its stdin) and waits for it to exit 0.
 * @param peer A peer from {@link startWoolPeer}.
 */
export async function withdrawWoolPeer(peer: ChildProcessWithoutNullStreams): Promise<void> {
  peer.stdin.end();
  const code = await new Promise<number | null>((resolve) => (peer.exitCode !== null ? resolve(peer.exitCode) : peer.once('exit', resolve)));
  assert.equal(code, 0);
}
