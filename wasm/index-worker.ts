/**
 * Worker-thread entry (run by tinypool from src/search/index-cache.ts): builds one index off
 * the main thread and returns its snapshot, moved (not copied) back to the caller, with the
 * analyzer signature so the caller can refuse a snapshot from a stale build.
 */
import { kTransferable, kValue, markMovable } from "tinypool";
import { analyzerSignature } from "../src/search/analyzer-signature.js";
import { workerBackend, type BuildResult, type BuildTask } from "../src/search/worker-backends.js";

/**
 * Tinypool only transfers a movable returned at the top level (Tinypool.move wraps a bare
 * buffer), so this wraps the whole result and lists the snapshot's buffer for transfer.
 */
function movable(result: BuildResult): BuildResult {
  const wrapper = {
    get [kTransferable](): ArrayBufferLike {
      return result.snapshot.buffer;
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
  const factory = workerBackend(task.kind);
  if (factory === undefined) throw new Error(`no worker backend "${task.kind}"`);
  const backend = await factory.create();
  try {
    backend.add(task.docs);
    const snapshot = backend.serialize?.();
    if (snapshot === undefined) throw new Error(`backend "${task.kind}" cannot serialize`);
    // Transferred, not cloned: the snapshot is tens of MiB at 100k tools.
    return movable({ signature: analyzerSignature(), snapshot, ms: performance.now() - started });
  } finally {
    backend.close?.();
  }
}
