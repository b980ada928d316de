/** boundedProviderFetch: provider answers over the byte cap fail, declared or streamed; smaller ones pass unchanged. */
import { describe, expect, it } from "vitest";
import { boundedProviderFetch, type FetchLike } from "../../src/agent/bounded-fetch.js";

function answering(body: string, headers: Record<string, string> = {}): FetchLike {
  return async () => new Response(body, { status: 201, statusText: "Created", headers });
}

describe("boundedProviderFetch", () => {
  it("passes an answer within the cap through: status, headers and body", async () => {
    const response = await boundedProviderFetch(10, answering("0123456789", { "x-id": "7" }))("http://provider.test");
    expect([response.status, response.statusText, response.headers.get("x-id")]).toEqual([201, "Created", "7"]);
    expect(await response.text()).toBe("0123456789");
  });

  it("refuses an answer that declares more than the cap before reading it", async () => {
    const fetch = boundedProviderFetch(10, answering("x".repeat(11), { "content-length": "11" }));
    await expect(fetch("http://provider.test")).rejects.toThrow(/11 bytes, over the 10-byte limit/);
  });

  it("fails the body as soon as an undeclared stream passes the cap", async () => {
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 4; i++) controller.enqueue(new Uint8Array(4));
        controller.close();
      },
    });
    const response = await boundedProviderFetch(10, async () => new Response(stream))("http://provider.test");
    await expect(response.arrayBuffer()).rejects.toThrow(/over the 10-byte limit/);
  });

  it("stops a body that has not ended when the request's signal aborts, with the signal's reason", async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(1));
      },
      cancel() {
        cancelled = true;
      },
    });
    const controller = new AbortController();
    // The inner fetch ignores the signal once it has the headers, as a fetch may.
    const response = await boundedProviderFetch(10, async () => new Response(stream))("http://provider.test", { signal: controller.signal });
    const reading = response.arrayBuffer();
    controller.abort(new Error("deadline passed"));
    await expect(reading).rejects.toThrow("deadline passed");
    expect(cancelled).toBe(true);
  });

  it("an answer without a body is returned as it is", async () => {
    const empty = new Response(null, { status: 204 });
    expect(await boundedProviderFetch(10, async () => empty)("http://provider.test")).toBe(empty);
  });
});
