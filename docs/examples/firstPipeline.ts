import { filterWorkers, memoryDiscovery, toSnapshots, workerInfo, type WorkerSnapshot } from '../../src/index.js';

/** Watches the GPU workers of a pool as snapshots while two workers come and one goes. */
export async function firstPipeline(): Promise<string[]> {
  const discovery = memoryDiscovery('getting-started'); // or localDiscovery / lanDiscovery / etcdDiscovery

  // A cold stream: nothing happens until subscribe. Every subscriber first
  // gets the current workers, then the changes.
  const gpuWorkers$ = discovery.events().pipe(
    filterWorkers((worker) => worker.tags.includes('gpu')), // added/dropped as workers start/stop passing
    toSnapshots(), // one Map<uid, WorkerInfo> per burst of changes
  );

  const seen: string[] = [];
  const describe = (snapshot: WorkerSnapshot): string =>
    [...snapshot.values()].map((worker) => worker.address).join(', ') || '(none)';
  const subscription = gpuWorkers$.subscribe((snapshot) => seen.push(describe(snapshot)));
  const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 10)); // let a batch flush

  const gpu = workerInfo({
    uid: crypto.randomUUID(),
    address: '10.0.0.1:50051',
    pid: 101,
    version: '1.0.0',
    tags: ['gpu'],
  });
  const cpu = workerInfo({
    uid: crypto.randomUUID(),
    address: '10.0.0.2:50051',
    pid: 102,
    version: '1.0.0',
    tags: ['cpu'],
  });
  {
    await using publisher = discovery.publisher();
    await publisher.publish('worker-added', gpu);
    await publisher.publish('worker-added', cpu); // not a GPU worker: no new snapshot
    await settle();
    // Promote the CPU worker: it starts passing the filter, so it is "added".
    await publisher.publish('worker-updated', workerInfo({ ...cpu, tags: ['cpu', 'gpu'] }));
    await settle();
  } // leaving the block disposes the publisher: it withdraws both workers
  await settle();

  subscription.unsubscribe();
  return seen; // ['10.0.0.1:50051', '10.0.0.1:50051, 10.0.0.2:50051', '(none)']
}
