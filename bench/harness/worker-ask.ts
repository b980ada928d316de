/** A request to a bench's worker thread, answered by one message of a given type. */
import type { Worker } from "node:worker_threads";

export type WorkerMessage = { type: string } & Record<string, unknown>;

/** Posts `message` to `worker` and resolves with its next message of type `reply` (rejects on the worker's error). */
export function askWorker(worker: Worker, message: WorkerMessage, reply: string): Promise<WorkerMessage> {
  return new Promise((resolve, reject) => {
    const onMessage = (answer: WorkerMessage): void => {
      if (answer.type !== reply) return;
      worker.off("message", onMessage);
      worker.off("error", reject);
      resolve(answer);
    };
    worker.on("message", onMessage);
    worker.once("error", reject);
    worker.postMessage(message);
  });
}
