/**
 * The floor of the LAN late-joiner bench (run by bench/lan/lateJoiner.ts
 * inside a network namespace, never directly): the time for one datagram
 * to reach a peer and `count` datagrams of `size` bytes to come back over
 * plain UDP (no DNS encoding or decoding, no discovery), in bursts of 32.
 *
 * `source <port>`: answers every datagram `<count> <size>` with that many
 * datagrams of that size. `sink <port> <source ip> <source port>`: prints
 * `{"ready":true}`, then on the stdin line `go <count> <size>` asks and
 * prints `{"floor_ms":…,"received":…}` once all arrived (or after 5 s).
 */
import { createSocket } from 'node:dgram';
import { createInterface } from 'node:readline';

const [role = 'sink', portText = '5400', sourceIp = '127.0.0.1', sourcePortText = '5401'] = process.argv.slice(2);
const socket = createSocket('udp4');

if (role === 'source') {
  socket.on('message', (message, from) => {
    const [count = 0, size = 0] = message.toString('utf8').split(' ').map(Number);
    const payload = Buffer.alloc(size, 0x61);
    // Bursts of 32, each sent once the previous one is handed to the kernel: as fast as the
    // receiver keeps up without drops.
    const burst = (sent: number): void => {
      const end = Math.min(count, sent + 32);
      for (let i = sent; i < end; i++)
        socket.send(
          payload,
          from.port,
          from.address,
          i === end - 1 && end < count ? () => setImmediate(() => burst(end)) : undefined,
        );
    };
    burst(0);
  });
  socket.bind(Number(portText), () => process.stdout.write(`${JSON.stringify({ ready: true })}\n`));
} else {
  let expected = 0;
  let received = 0;
  let start = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const finish = (): void => {
    clearTimeout(timer);
    process.stdout.write(`${JSON.stringify({ floor_ms: performance.now() - start, received })}\n`);
    expected = 0;
  };
  socket.on('message', () => {
    if (expected === 0) return;
    received++;
    if (received === expected) finish();
  });
  socket.bind(Number(portText), () => {
    try {
      socket.setRecvBufferSize(1 << 20);
    } catch {
      // capped: keep the default
    }
    process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
  });
  createInterface({ input: process.stdin }).on('line', (line) => {
    const [word, count = '0', size = '0'] = line.trim().split(' ');
    if (word !== 'go') return;
    expected = Number(count);
    received = 0;
    start = performance.now();
    timer = setTimeout(finish, 5000);
    socket.send(`${count} ${size}`, Number(sourcePortText), sourceIp);
  });
}
process.stdin.on('end', () => process.exit(0));
