/**
 * A fetch for the provider clients whose response bodies are capped: the SDKs read a whole
 * answer before parsing it, so an answer over `maxBytes` (declared, or as it streams in) fails
 * the request instead of growing the process with it. The body also stops when the request's
 * signal aborts: runAgentTurn's per-request deadline runs until the answer is read, and a body
 * that drips or goes silent after its headers must not outlive it, whatever the inner fetch
 * does with a signal once it has returned the headers.
 */
import { ProviderFailedError } from "../errors.js";

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export function boundedProviderFetch(maxBytes: number, inner: FetchLike = fetch): FetchLike {
  return async (input, init) => {
    const response = await inner(input, init);
    const declared = Number(response.headers.get("content-length") ?? 0);
    if (declared > maxBytes) {
      await response.body?.cancel().catch(() => {});
      throw new ProviderFailedError(`the provider's answer is ${declared} bytes, over the ${maxBytes}-byte limit`);
    }
    if (!response.body) return response;
    const signal = init?.signal ?? undefined;
    let seen = 0;
    let release = (): void => {};
    const capped = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        start(controller) {
          if (!signal) return;
          const abort = (): void => controller.error(signal.reason ?? new ProviderFailedError("the provider request was aborted"));
          if (signal.aborted) return abort();
          signal.addEventListener("abort", abort, { once: true });
          release = () => signal.removeEventListener("abort", abort);
        },
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen <= maxBytes) return controller.enqueue(chunk);
          release();
          controller.error(new ProviderFailedError(`the provider's answer is over the ${maxBytes}-byte limit`));
        },
        flush() {
          release();
        },
      }),
    );
    return new Response(capped, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
