/** The scripted provider's request record stays bounded: by count and by bytes, oldest first. */
import { afterEach, describe, expect, it } from "vitest";
import { RecordDroppedError, startMockProvider, type MockProvider } from "../../src/mock-provider/mock-provider.js";

const chat = (provider: MockProvider, text: string) =>
  fetch(`${provider.url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: text }] }),
  }).then((r) => r.json());

const debugRequests = async (provider: MockProvider) =>
  (
    (await (await fetch(`${provider.url.replace(/\/v1$/, "")}/debug/requests`)).json()) as {
      requests: Array<{ body: { messages: Array<{ content: string }> } }>;
    }
  ).requests.map((r) => r.body.messages[0]!.content);

describe("scripted provider record", () => {
  let provider: MockProvider | undefined;
  afterEach(async () => {
    await provider?.close();
    provider = undefined;
  });

  it("keeps the last maxRecorded requests, oldest dropped first", async () => {
    provider = await startMockProvider({ maxRecorded: 3 });
    for (const text of ["a", "b", "c", "d", "e"]) await chat(provider, text);
    expect(await debugRequests(provider)).toEqual(["c", "d", "e"]);
    expect(provider.received()).toBe(5);
    expect(provider.requestsSince(3).map((r) => (r.api === "chat" ? r.body.messages?.[0]?.content : undefined))).toEqual(["d", "e"]);
    expect(() => provider!.requestsSince(1)).toThrow(RecordDroppedError);
  });

  it("keeps at most maxRecordedBytes of bodies in all, and none over the bound alone", async () => {
    provider = await startMockProvider({ maxRecordedBytes: 2_000 });
    // Each body is its text plus well under 300 bytes of JSON around it.
    await chat(provider, "first");
    await chat(provider, "x".repeat(1_300));
    expect((await debugRequests(provider)).map((t) => t[0])).toEqual(["f", "x"]);
    await chat(provider, "y".repeat(1_300));
    expect((await debugRequests(provider)).map((t) => t[0])).toEqual(["y"]);
    await chat(provider, "z".repeat(3_000));
    expect(await debugRequests(provider)).toEqual([]);
    expect(provider.received()).toBe(4);
  });

  it("defaults to 200 requests, and DELETE clears without losing the count", async () => {
    provider = await startMockProvider();
    for (let i = 0; i < 205; i += 1) await chat(provider, `r${i}`);
    const kept = await debugRequests(provider);
    expect(kept).toHaveLength(200);
    expect(kept[0]).toBe("r5");
    await fetch(`${provider.url.replace(/\/v1$/, "")}/debug/requests`, { method: "DELETE" });
    expect(await debugRequests(provider)).toEqual([]);
    const mark = provider.received();
    await chat(provider, "after");
    expect(provider.requestsSince(mark)).toHaveLength(1);
  });
});
