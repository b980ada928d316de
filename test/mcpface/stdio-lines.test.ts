/**
 * stdin cut into bounded lines for the SDK's stdio transport (src/mcpface/stdio-lines.ts): whole
 * lines within the bound pass, one per chunk, however the input is split; a line past it is
 * skipped as it streams, reported with the request's id where the client wrote one, and the next
 * line passes again.
 */
import { describe, expect, it } from "vitest";
import { LineLimit, type SkippedLine } from "../../src/mcpface/stdio-lines.js";

async function feed(max: number, chunks: readonly string[]): Promise<{ lines: string[]; skipped: SkippedLine[] }> {
  const skipped: SkippedLine[] = [];
  const limit = new LineLimit(max, (line) => skipped.push(line));
  const lines: string[] = [];
  limit.on("data", (chunk: Buffer) => lines.push(chunk.toString()));
  const ended = new Promise((resolve) => limit.on("end", resolve));
  for (const chunk of chunks) limit.write(Buffer.from(chunk));
  limit.end();
  await ended;
  return { lines, skipped };
}

const message = (id: unknown, padding = 0) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list", params: { pad: "p".repeat(padding) } });

describe("LineLimit", () => {
  it("passes each whole line within the bound as one chunk, however the input is split", async () => {
    const a = message(1);
    const b = message(2);
    const { lines, skipped } = await feed(1_000, [a.slice(0, 5), `${a.slice(5)}\n${b.slice(0, 3)}`, `${b.slice(3)}\n`]);
    expect(lines).toEqual([`${a}\n`, `${b}\n`]);
    expect(skipped).toEqual([]);
  });

  it("skips a line past the bound across chunks, reports it with the id written last, and passes the next line", async () => {
    // The SDK's clients write the id last.
    const long = JSON.stringify({ method: "tools/call", params: { name: "x", arguments: { id: 5, text: "t".repeat(5_000) } }, jsonrpc: "2.0", id: 42 });
    const next = message(43);
    const pieces = long.match(/[\s\S]{1,700}/g)!;
    const { lines, skipped } = await feed(1_000, [...pieces, `\n${next}\n`]);
    expect(skipped).toEqual([{ id: 42, bytes: long.length }]);
    expect(lines).toEqual([`${next}\n`]);
  });

  it("finds an id written first, a string id included; id null when the line has none to read", async () => {
    const first = JSON.stringify({ jsonrpc: "2.0", id: "req-7", method: "tools/list", params: { pad: "p".repeat(2_000) } });
    const { skipped } = await feed(1_000, [`${first}\n`, `${"x".repeat(3_000)}\n`, `${JSON.stringify({ params: { id: 9, pad: "p".repeat(2_000) } })}\n`]);
    expect(skipped.map((s) => s.id)).toEqual(["req-7", null, null]);
  });

  it("drops a last line with no newline (the SDK would never read it either)", async () => {
    const { lines, skipped } = await feed(1_000, [`${message(1)}\n`, message(2)]);
    expect(lines).toEqual([`${message(1)}\n`]);
    expect(skipped).toEqual([]);
  });
});
