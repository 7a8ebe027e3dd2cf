/**
 * A wool process publishing one worker, for tests that need "a wool peer
 * comes, stays, and goes" in a namespace: the real wool
 * (`../shared/wool-peer`, through realwool_peer.py and {@link RealWool}),
 * one copy for every such test.
 */
import type { WorkerInfo } from '../../src/model/types.js';
import { killRealWool, RealWool } from './realWool.js';

/** A running wool process and the worker it registered. */
export interface WoolPeer {
  readonly wool: RealWool;
  readonly worker: WorkerInfo;
}

/** SIGKILLs (by pid) every wool peer still running. */
export function killWoolPeers(): void {
  killRealWool();
}

/**
 * Starts a wool process on `namespace` (entering wool's `LocalDiscovery`:
 * it creates, and so owns, the segment when there is none, and then unlinks
 * it when it leaves) and registers `worker` through wool's publisher.
 * @param namespace The namespace.
 * @param worker The worker to register (a re-add refreshes it in place).
 * @param options `capacity` when this process creates the segment.
 * @returns The running peer.
 */
export async function startWoolPeer(
  namespace: string,
  worker: WorkerInfo,
  options: { capacity?: number } = {},
): Promise<WoolPeer> {
  const wool = await RealWool.start('local', namespace, options);
  await wool.publish('worker-added', worker, 20_000);
  return { wool, worker };
}

/**
 * Leaves like a wool worker pool: drops its worker, leaves its `with`
 * blocks (the owner unlinks the segment) and exits 0.
 * @param peer A peer from {@link startWoolPeer}.
 */
export async function withdrawWoolPeer(peer: WoolPeer): Promise<void> {
  await peer.wool.publish('worker-dropped', peer.worker);
  await peer.wool.exit();
}
