/**
 * `toolsearch mcp` stopping without losing an answer: once it drains, a request that arrives
 * is refused with CLOSING; one in flight runs until it finishes or until the drain's end (the
 * cut), when its work is cancelled and it is answered CLOSING. Either way the client gets a
 * JSON-RPC answer for every request it sent, never a stream that ends with nothing in it.
 */
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { onAbort } from "../abort-listeners.js";
import type { ErrorCode } from "../errors.js";
import { REFUSED } from "./answer-flow.js";

/** A JSON-RPC error with the CLOSING code, as the face's other refusals carry theirs. */
function closingMcpError(message: string): McpError {
  return new McpError(REFUSED, message, { code: "CLOSING" satisfies ErrorCode });
}

export class FaceDrain {
  #draining = false;
  readonly #cut = new AbortController();

  get draining(): boolean {
    return this.#draining;
  }

  /** No new request from now on. */
  start(): void {
    this.#draining = true;
  }

  /** The drain's end: whatever still runs is cancelled and answered CLOSING. */
  cut(drainMs: number): void {
    this.#draining = true;
    this.#cut.abort(
      closingMcpError(`The server is shutting down: this request was still running at the end of the drain (gateway.drainMs ${drainMs} ms) and was stopped.`),
    );
  }

  /**
   * One request's work, given a signal aborted by the client's cancel or the cut. Rejects with
   * CLOSING while draining, or at the cut (the work is cancelled then, and its late answer dropped).
   */
  run<T>(work: (signal: AbortSignal) => Promise<T>, request: AbortSignal): Promise<T> {
    if (this.#draining) return Promise.reject(closingMcpError("The server is shutting down and takes no new request; reconnect once it is back."));
    return new Promise<T>((resolve, reject) => {
      const controller = new AbortController();
      const offRequest = request.aborted ? (controller.abort(request.reason), () => {}) : onAbort(request, () => controller.abort(request.reason));
      const cut = this.#cut.signal;
      const offCut = onAbort(cut, () => {
        reject(cut.reason as McpError);
        controller.abort(cut.reason);
      });
      work(controller.signal)
        .then(resolve, reject)
        .finally(() => {
          offRequest();
          offCut();
        });
    });
  }
}
