/**
 * A fetch for the provider clients whose response bodies are capped: the SDKs read a whole
 * answer before parsing it, so an answer over `maxBytes` (declared, or as it streams in) fails
 * the request instead of growing the process with it.
 */
import { ProviderFailedError } from "../errors.js";

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export function boundedFetch(maxBytes: number, inner: FetchLike = fetch): FetchLike {
  return async (input, init) => {
    const response = await inner(input, init);
    const declared = Number(response.headers.get("content-length") ?? 0);
    if (declared > maxBytes) {
      await response.body?.cancel().catch(() => {});
      throw new ProviderFailedError(`the provider's answer is ${declared} bytes, over the ${maxBytes}-byte limit`);
    }
    if (!response.body) return response;
    let seen = 0;
    const capped = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > maxBytes) controller.error(new ProviderFailedError(`the provider's answer is over the ${maxBytes}-byte limit`));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(capped, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
