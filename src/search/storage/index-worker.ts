/**
 * Worker-thread entry (run by tinypool from index-cache.ts): builds one index off
 * the main thread and returns it (its postings as they are, and its snapshot when asked for),
 * moved (not copied) back to the caller, with the analyzer signature so the caller can refuse
 * what a stale build made.
 */
import { kTransferable, kValue, markMovable } from "tinypool";
import { InternalError } from "../../errors.js";
import { analyzerSignature } from "./analyzer-signature.js";
import { workerBackend, type BuildResult, type BuildTask } from "./worker-backends.js";

/**
 * Tinypool only transfers a movable returned at the top level (Tinypool.move wraps a bare
 * buffer), so this wraps the whole result and lists its buffers for transfer.
 */
function movable(result: BuildResult, transfer: ArrayBufferLike[]): BuildResult {
  const wrapper = {
    get [kTransferable](): ArrayBufferLike[] {
      return transfer;
    },
    get [kValue](): BuildResult {
      return result;
    },
  };
  markMovable(wrapper);
  // The pool unwraps it: the caller receives `result` itself.
  return wrapper as unknown as BuildResult;
}

export default async function buildIndexSnapshot(task: BuildTask): Promise<BuildResult> {
  const started = performance.now();
  const entry = workerBackend(task.kind);
  if (entry === undefined) throw new InternalError(`no worker backend "${task.kind}"`);
  const backend = await entry.factory.create();
  try {
    backend.add(task.docs);
    const handed = entry.parts?.(backend);
    const snapshot = task.snapshot || handed === undefined ? await backend.serialize?.() : undefined;
    if (handed === undefined && snapshot === undefined) throw new InternalError(`backend "${task.kind}" cannot serialize`);
    // Transferred, not cloned: tens of MiB at 100k tools.
    const transfer: ArrayBufferLike[] = [...(handed?.transfer ?? []), ...(snapshot !== undefined ? [snapshot.buffer] : [])];
    const result: BuildResult = { signature: analyzerSignature(), ms: performance.now() - started };
    if (handed !== undefined) result.parts = handed.parts;
    if (snapshot !== undefined) result.snapshot = snapshot;
    return movable(result, transfer);
  } finally {
    backend.close?.();
  }
}
