/**
 * What every backend class shares: it holds one index until `close()`, after which any use
 * throws IndexClosedError (a run or engine that ended must not rank with a dropped index), and a
 * snapshot that cannot be loaded is one clear error naming the backend.
 */
import { ConfigInvalidError, errorMessage, IndexClosedError } from "../../errors.js";

export abstract class IndexedBackend<I> {
  abstract readonly kind: string;
  #index: I | undefined;

  constructor(index: I) {
    this.#index = index;
  }

  close(): void {
    this.#index = undefined;
  }

  /** The index, unless the backend is closed. */
  protected open(): I {
    if (this.#index === undefined) throw new IndexClosedError();
    return this.#index;
  }
}

/**
 * A backend loaded from a snapshot by `read`: whatever goes wrong (bad bytes, a failed check)
 * is one CONFIG_INVALID saying which backend and that the index must be rebuilt.
 */
export async function loadedSnapshot<B>(kind: string, read: () => Promise<B>): Promise<B> {
  try {
    return await read();
  } catch (error) {
    throw new ConfigInvalidError(`backend "${kind}": the index snapshot could not be loaded (${errorMessage(error)}); rebuild the index.`, { cause: error });
  }
}
