import type { Etcd3, ICallable, IRangeRequest, IRangeResponse } from 'etcd3';
import { decodeRangeResponse, type RangePage } from './decodeRangeResponse.js';
import { loadEtcd3 } from './loadEtcd3.js';
import { unavailableAsWoolrx } from './unavailableAsWoolrx.js';
import type { EtcdSettings } from './types.js';

/** What gRPC's generated client says of a method (grpc-js attaches it to the client's method). */
interface MethodDefinition {
  readonly path: string;
  readonly requestSerialize: (request: IRangeRequest) => Buffer;
}

/** The exact integer of an etcd3 int64 string. */
function int64(text: string): number | bigint {
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : BigInt(text);
}

/** The page of a response decoded by etcd3 (the path through `client.kv.range`). */
function pageOf(response: IRangeResponse): RangePage {
  return {
    revision: response.header.revision,
    records: response.kvs.map((kv) => ({ key: kv.key, value: kv.value, modRevision: int64(kv.mod_revision) })),
    more: response.more,
    count: Number(response.count),
  };
}

/**
 * One etcd range request, as `client.kv.range(request)` makes it (the same
 * request, endpoints, deadline, retries and errors), but with the response
 * decoded by {@link decodeRangeResponse} instead of etcd3's decoder: a read
 * of many keys then costs the client a small part of what building etcd3's
 * full `IKeyValue`s does.
 *
 * The call goes through the client's connection pool (per-endpoint
 * circuit breakers, the cached auth token) and the same global policy as
 * the client's own calls ({@link unavailableAsWoolrx}), with the
 * discovery's request timeout as deadline. When the auth token has expired,
 * or when the client has no pool that serves it (another etcd3 version), the
 * request goes through `client.kv.range`, which refreshes the token.
 * @param client The discovery's etcd3 client.
 * @param request The range request.
 * @param settings The discovery's settings (endpoints, request timeout).
 * @internal
 */
export async function readRange(client: Etcd3, request: IRangeRequest, settings: EtcdSettings): Promise<RangePage> {
  const pool = (client as unknown as { pool?: ICallable<unknown> }).pool;
  const viaClient = async (): Promise<RangePage> => pageOf(await client.kv.range(request));
  if (pool === undefined) return viaClient();
  const { EtcdInvalidAuthTokenError, castGrpcError } = loadEtcd3();
  let page: RangePage | undefined;
  try {
    page = await unavailableAsWoolrx(settings.endpoints).execute(() =>
      pool.withConnection('KV', ({ client: grpc, metadata }) => {
        const method = (grpc as unknown as { range?: Partial<MethodDefinition> }).range;
        // Not grpc-js's generated client: the request goes through etcd3 instead.
        if (typeof method?.path !== 'string' || typeof method.requestSerialize !== 'function') return undefined;
        const { path, requestSerialize } = method as MethodDefinition;
        return new Promise<RangePage>((resolve, reject) => {
          grpc.makeUnaryRequest(
            path,
            requestSerialize,
            decodeRangeResponse,
            request,
            metadata,
            { deadline: Date.now() + settings.requestTimeout },
            (error, page) => {
              if (error !== null || page === undefined)
                reject(castGrpcError(error ?? new Error('etcd sent no response')));
              else resolve(page);
            },
          );
        });
      }),
    );
  } catch (error) {
    if (error instanceof EtcdInvalidAuthTokenError) return viaClient();
    throw error;
  }
  return page ?? viaClient();
}
