import type { WorkerInfo } from '../model/types.js';

interface Frame {
  readonly frame: number;
  readonly notification: { readonly kind: string; readonly value?: unknown; readonly error?: unknown };
}

function isWorker(value: unknown): value is WorkerInfo {
  return typeof value === 'object' && value !== null && 'uid' in value && 'address' in value && 'pid' in value;
}

function short(value: unknown): string {
  if (isWorker(value)) {
    const tags = value.tags.length > 0 ? ` tags=${value.tags.join(',')}` : '';
    const extra = Object.keys(value.extra).length > 0 ? ` extra=${JSON.stringify(value.extra)}` : '';
    return `${value.uid.slice(0, 8)}@${value.address} pid=${value.pid} v${value.version}${tags}${extra}`;
  }
  if (value instanceof Map) {
    return `Map{${[...value.values()].map(short).join('; ')}}`;
  }
  if (typeof value === 'object' && value !== null && 'type' in value && 'worker' in value) {
    const event = value;
    return `${String(event.type)}(${short(event.worker)})`;
  }
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Renders TestScheduler frames one per line — `frame 3: N worker-added(6f1d2b1c@…)` —
 * so a failed marble assertion shows which worker event differs.
 *
 * @example
 * formatFrames([{ frame: 0, notification: { kind: 'C' } }]); // 'frame 0: C'
 *
 * @param frames Frames as TestScheduler records them (or subscription logs' siblings).
 * @returns One line per frame.
 */
export function formatFrames(frames: readonly unknown[]): string {
  return frames
    .map((item) => {
      const f = item as Frame;
      if (typeof f !== 'object' || f === null || !('notification' in f)) return short(item);
      const n = f.notification;
      const body = n.kind === 'N' ? short(n.value) : n.kind === 'E' ? short(n.error) : '';
      return `frame ${f.frame}: ${n.kind}${body ? ` ${body}` : ''}`;
    })
    .join('\n');
}
