/**
 * A hand-driven mDNS responder on raw multicast-dns, for the LAN tests (run
 * inside a network namespace, never directly). JSON commands on stdin:
 *
 * - `{op:'send', answers}`: multicast a response with these records at once;
 * - `{op:'garbage'}`: multicast 6 bytes that are not a DNS message;
 * - `{op:'flood', count, ms}`: multicast `count` 1000-byte datagrams that
 *   are not DNS messages, spread over `ms`; reports `{ev:'flooded'}`;
 * - `{op:'rule', name, type, actions: [{delayMs, answers}]}`: when a query
 *   asks for `name` (and `type`), send each action's records after its delay.
 *
 * Reports `{ev:'query', questions}` for every query seen, `{ev:'sent'}` after
 * each send. Exits when stdin closes.
 */
import makeMdns from 'multicast-dns';
import type { Answer } from 'dns-packet';
import { createSocket } from 'node:dgram';
import { createInterface } from 'node:readline';

interface Action {
  readonly delayMs: number;
  readonly answers: Answer[];
}
interface Rule {
  readonly name: string;
  readonly type: string;
  readonly actions: Action[];
  fired: boolean;
}

const out = (message: object): void => void process.stdout.write(`${JSON.stringify(message)}\n`);
const mdns = makeMdns();
mdns.on('error', (error: unknown) => out({ ev: 'error', message: String(error) }));
mdns.on('warning', (error: unknown) => out({ ev: 'warning', message: String(error) }));
const rules: Rule[] = [];
const timers = new Set<ReturnType<typeof setTimeout>>();

function send(answers: Answer[], label: string): void {
  mdns.respond({ answers }, (error) => out({ ev: 'sent', label, error: error === null ? undefined : String(error) }));
}

mdns.on('query', (query) => {
  out({ ev: 'query', questions: (query.questions ?? []).map((q) => ({ name: q.name, type: q.type })) });
  for (const question of query.questions ?? []) {
    for (const rule of rules) {
      if (rule.fired || question.name.toLowerCase() !== rule.name.toLowerCase() || question.type !== rule.type)
        continue;
      rule.fired = true;
      rule.actions.forEach((action, index) => {
        const timer = setTimeout(() => {
          timers.delete(timer);
          send(action.answers, `${rule.name} ${rule.type} #${index}`);
        }, action.delayMs);
        timers.add(timer);
      });
    }
  }
});

createInterface({ input: process.stdin })
  .on('line', (line) => {
    const command = JSON.parse(line) as {
      op: string;
      count?: number;
      ms?: number;
      answers?: Answer[];
      name?: string;
      type?: string;
      actions?: Action[];
    };
    if (command.op === 'send' && command.answers) send(command.answers, 'send');
    else if (command.op === 'garbage') {
      // Bytes that are not a DNS message, to the mDNS group.
      const raw = createSocket('udp4');
      raw.send(Buffer.from([0xde, 0xad, 0xbe, 0xef, 0x00, 0x01]), 5353, '224.0.0.251', (error) => {
        out({ ev: 'sent', label: 'garbage', error: error ? String(error) : undefined });
        raw.close();
      });
    } else if (command.op === 'flood' && command.count !== undefined && command.ms !== undefined) {
      // A header announcing more records than follow: never decodes.
      const garbage = Buffer.alloc(1000, 0xff);
      garbage.writeUInt16BE(0x8400, 2);
      const raw = createSocket('udp4');
      raw.on('error', () => undefined); // a full send buffer loses a datagram: a flood is lossy anyway
      const batches = 20;
      let sent = 0;
      const batch = (index: number): void => {
        for (let i = 0; i < Math.ceil(command.count! / batches) && sent < command.count!; i++, sent++)
          raw.send(garbage, 5353, '224.0.0.251');
        if (index + 1 < batches) setTimeout(() => batch(index + 1), command.ms! / batches);
        else setTimeout(() => raw.close(() => out({ ev: 'flooded', count: sent })), 100);
      };
      batch(0);
    } else if (command.op === 'rule' && command.name && command.type && command.actions) {
      rules.push({ name: command.name, type: command.type, actions: command.actions, fired: false });
      out({ ev: 'rule', name: command.name });
    }
  })
  .on('close', () => {
    for (const timer of timers) clearTimeout(timer);
    mdns.destroy();
  });
mdns.on('ready', () => out({ ev: 'ready', pid: process.pid }));
