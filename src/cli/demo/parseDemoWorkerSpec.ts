import type { DemoWorkerSpec } from './types.js';

function strings(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function stringRecord(value: unknown): value is Record<string, string> {
  return (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    Object.values(value).every((item) => typeof item === 'string')
  );
}

/**
 * Reads the JSON the demo passes to a worker process (`--as-worker JSON`):
 * `{"uid","address","tags":[…],"extra":{…}}`. The values themselves are
 * validated by `workerInfo` when the worker is built.
 *
 * @example
 * parseDemoWorkerSpec('{"uid":"…","address":"127.0.0.1:50051","tags":["gpu"],"extra":{}}');
 *
 * @param text The JSON text.
 * @throws {TypeError} When the text is not such an object.
 */
export function parseDemoWorkerSpec(text: string): DemoWorkerSpec {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new TypeError(`--as-worker: not JSON: ${JSON.stringify(text.slice(0, 80))}`);
  }
  const spec = value as Partial<Record<keyof DemoWorkerSpec, unknown>> | null;
  if (
    spec === null ||
    typeof spec !== 'object' ||
    typeof spec.uid !== 'string' ||
    typeof spec.address !== 'string' ||
    !strings(spec.tags) ||
    !stringRecord(spec.extra)
  ) {
    throw new TypeError('--as-worker: expected {"uid","address","tags":[string],"extra":{string:string}}');
  }
  return { uid: spec.uid, address: spec.address, tags: spec.tags, extra: spec.extra };
}
