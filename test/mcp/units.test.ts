/** The pure parts: config checks, name mapping, call results. */
import { describe, expect, it } from "vitest";
import { ConfigInvalidError, ToolFailedError } from "../../src/errors.js";
import { interpretCallResult } from "../../src/mcp/call-result.js";
import { mcpServer } from "../../src/mcp/index.js";
import { isValidToolName, mapToolNames } from "../../src/mcp/tool-names.js";

describe("mcpServer config", () => {
  it("accepts the two shapes and derives source and toolset", () => {
    const stdio = mcpServer({ name: "fs", command: "node", args: ["server.js"], env: { A: "1" }, cwd: "/tmp" });
    expect([stdio.source, stdio.toolset]).toEqual(["mcp", "fs"]);
    expect(stdio.status()).toMatchObject({ state: "idle", transport: "stdio", tools: 0 });
    expect(stdio.unavailableReason()).toBe('MCP server "fs" is not connected');
    expect(mcpServer({ name: "web", url: "https://example.test/mcp", headers: { A: "b" } }).status().transport).toBe("http");
  });

  it("rejects bad config with a message naming the option, the value and its type", () => {
    const cases: Array<[unknown, RegExp]> = [
      [null, /mcpServer: must be an object with name and command or url; got null \(null\)/],
      [{ name: "a:b", command: "x" }, /name: must be 1-64 characters.*got "a:b" \(string\)/],
      [{ name: "a" }, /exactly one of command \(stdio\) or url/],
      [{ name: "a", command: "x", url: "http://h" }, /exactly one of command/],
      [{ name: "a", command: "" }, /command: must be a non-empty string; got "" \(string\)/],
      [{ name: "a", command: "x", args: "y" }, /args: must be an array of strings; got "y" \(string\)/],
      [{ name: "a", command: "x", env: { TOKEN: 5 } }, /env\.TOKEN: must be string; got 5 \(number\)/],
      [{ name: "a", url: "ftp://h/x" }, /url: must be an http: or https: URL; got protocol "ftp:"/],
      [{ name: "a", url: "not a url" }, /url: must be an http: or https: URL/],
      [{ name: "a", url: "http://h", headers: { Authorization: 1 } }, /headers\.Authorization: must be string; got 1 \(number\)/],
      [{ name: "a", command: "x", shell: true }, /unknown option "shell"/],
    ];
    for (const [config, message] of cases) {
      expect(() => mcpServer(config as never), JSON.stringify(config)).toThrow(ConfigInvalidError);
      expect(() => mcpServer(config as never)).toThrow(message);
    }
  });

  it("rejects bad options the same way", () => {
    const cfg = { name: "a", command: "x" };
    expect(() => mcpServer(cfg, { connectTimeoutMs: 0 })).toThrow(/connectTimeoutMs: must be an integer from 1 to 600000; got 0 \(number\)/);
    expect(() => mcpServer(cfg, { stderr: "pipe" as never })).toThrow(/stderr: must be one of "capture", "inherit", "ignore"; got "pipe" \(string\)/);
    expect(() => mcpServer(cfg, { retries: 3 } as never)).toThrow(/unknown option "retries"/);
    expect(() => mcpServer(cfg, { minRelistIntervalMs: -1 })).toThrow(/minRelistIntervalMs: must be an integer from 0 to 3600000; got -1 \(number\)/);
    expect(() => mcpServer(cfg, { maxMessageBytes: 1_000 })).toThrow(/maxMessageBytes: must be an integer from 65536 to 1073741824; got 1000 \(number\)/);
    expect(() => mcpServer(cfg, { maxMessageBytes: "8MB" as never })).toThrow(/maxMessageBytes: must be an integer.*got "8MB" \(string\)/);
    expect(mcpServer(cfg, { minRelistIntervalMs: 0, maxMessageBytes: 65_536 }).status().state).toBe("idle");
  });
});

describe("tool name mapping", () => {
  it("keeps valid names, sanitizes the rest, dedupes deterministically whatever the order", () => {
    const names = ["get/file", "get file", "get_file", "", "ok-name.v2", "日本"];
    const forward = mapToolNames(names);
    const backward = mapToolNames([...names].reverse());
    expect([...forward.entries()].sort()).toEqual([...backward.entries()].sort());
    expect(forward.get("get_file")).toBe("get_file");
    expect(forward.get("get file")).toBe("get_file_2");
    expect(forward.get("get/file")).toBe("get_file_3");
    expect(forward.get("")).toBe("tool");
    expect(forward.get("ok-name.v2")).toBe("ok-name.v2");
    expect(forward.get("日本")).toBe("__");
    for (const mapped of forward.values()) expect(isValidToolName(mapped)).toBe(true);
    expect(new Set(forward.values()).size).toBe(names.length);
  });

  it("a suffixed name stays within 128 characters", () => {
    const long = `${"x".repeat(130)}`;
    const mapped = mapToolNames([long, `${"x".repeat(128)}`, `${"x".repeat(129)}`]);
    expect(mapped.get("x".repeat(128))).toBe("x".repeat(128));
    expect(mapped.get("x".repeat(129))).toBe(`${"x".repeat(126)}_2`);
    expect(mapped.get(long)).toBe(`${"x".repeat(126)}_3`);
  });
});

describe("call results", () => {
  it("structured content first, then joined text, then the content array", () => {
    expect(interpretCallResult({ content: [{ type: "text", text: "x" }], structuredContent: { a: 1 } }, "t")).toEqual({ a: 1 });
    expect(
      interpretCallResult(
        {
          content: [
            { type: "text", text: "a" },
            { type: "text", text: "b" },
          ],
        },
        "t",
      ),
    ).toBe("a\nb");
    const mixed = [
      { type: "text" as const, text: "a" },
      { type: "image" as const, data: "AAAA", mimeType: "image/png" },
    ];
    expect(interpretCallResult({ content: mixed }, "t")).toEqual(mixed);
    expect(interpretCallResult({ content: [] }, "t")).toBe("");
  });

  it("isError becomes ToolFailedError with the server's text as the message", () => {
    const run = (content: Array<{ type: "text"; text: string }>) => () => interpretCallResult({ isError: true, content }, 'MCP tool "t"');
    expect(run([{ type: "text", text: "no such file" }])).toThrow(ToolFailedError);
    expect(run([{ type: "text", text: "no such file" }])).toThrow(/^no such file$/);
    expect(run([])).toThrow('MCP tool "t" reported an error without text.');
    expect(run([{ type: "text", text: `bad\u0007 ${"e".repeat(10_000)}` }])).toThrow(/^bad e+…$/);
  });
});
