import { get } from 'node:http';

/**
 * etcd's own count of open watchers plus the gRPC watch streams that carry
 * them (its Prometheus gauges on `/metrics`). Read with a one-off connection
 * (not fetch(), whose keep-alive pool would hold a descriptor of its own in
 * the process being measured).
 * @param endpoint An etcd client URL on loopback.
 * @returns The sum of the two gauges.
 */
export async function serverWatchers(endpoint: string): Promise<number> {
  const text = await new Promise<string>((resolve, reject) => {
    get(`${endpoint}/metrics`, { agent: false }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve(body));
    }).on('error', reject);
  });
  let total = 0;
  for (const gauge of ['etcd_debugging_mvcc_watcher_total', 'etcd_debugging_mvcc_watch_stream_total']) {
    const match = new RegExp(`^${gauge} (\\d+)`, 'm').exec(text);
    if (match === null) throw new Error(`etcd /metrics has no ${gauge}`);
    total += Number(match[1]);
  }
  return total;
}
