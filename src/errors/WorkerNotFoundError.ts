import { WoolrxError } from './WoolrxError.js';

/** `worker-updated` was published for a worker the namespace does not hold. */
export class WorkerNotFoundError extends WoolrxError {
  /** The uid that was not found. */
  readonly uid: string;
  /** The namespace that was searched. */
  readonly namespace: string;

  /**
   * @param uid The uid that was not found.
   * @param namespace The namespace that was searched.
   */
  constructor(uid: string, namespace: string) {
    super('WOOLRX_WORKER_NOT_FOUND', `Worker ${uid} is not registered in namespace ${JSON.stringify(namespace)}`);
    this.uid = uid;
    this.namespace = namespace;
  }
}
