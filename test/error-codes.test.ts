/**
 * ERROR_CODES (src/errors.ts) is the one table of codes: docs/configuration.md's table is
 * generated from it (UPDATE_DOCS=1 rewrites it), docs/library.md's list is checked against it, and each
 * class carries the code the table gives it.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as errors from "../src/errors.js";
import { ERROR_CODES, type ErrorCode } from "../src/errors.js";
import { UsageError } from "../src/cli/usage.js";
import { linearRegExp, UnsupportedPatternError } from "../src/validation/linear-regexp.js";
import { ConfigPathError, parsePath } from "../src/config/dot-path.js";
import { RecordDroppedError } from "../src/mock-provider/mock-provider.js";
import { MessageTooLargeError } from "../src/mcp/message-limit.js";
import { FrameTooLargeError } from "../src/sandbox/bridge/codec.js";
import { ChildStartError } from "../src/sandbox/pool/sandbox-child.js";

const DOC = new URL("../docs/configuration.md", import.meta.url);
const START = "<!-- error-codes: generated from ERROR_CODES in src/errors.ts by test/error-codes.test.ts -->";
const END = "<!-- /error-codes -->";

function table(): string {
  const rows = Object.entries(ERROR_CODES).map(([code, row]) => `| \`${code}\` | \`${row.class}\` | ${"status" in row ? row.status : ""} | ${row.meaning} |`);
  return [START, "| code | class | HTTP status | meaning |", "| --- | --- | --- | --- |", ...rows, END].join("\n");
}

describe("error codes", () => {
  it("docs/configuration.md carries the table generated from ERROR_CODES", () => {
    const text = readFileSync(DOC, "utf8");
    const start = text.indexOf(START);
    const end = text.indexOf(END);
    expect(start).toBeGreaterThan(0);
    const current = text.slice(start, end + END.length);
    // UPDATE_DOCS=1 writes the table first; the check below then reads what was written.
    if (process.env.UPDATE_DOCS) writeFileSync(DOC, text.replace(current, table()));
    const written = readFileSync(DOC, "utf8");
    expect(written.slice(written.indexOf(START), written.indexOf(END) + END.length)).toBe(table());
  });

  it("docs/library.md's error list names exactly the codes of ERROR_CODES", () => {
    const readme = readFileSync(new URL("../docs/library.md", import.meta.url), "utf8");
    const start = readme.indexOf("- Errors are `ToolSearchError` subclasses");
    const paragraph = readme.slice(start, readme.indexOf("\n- ", start + 1));
    const listed = [...new Set([...paragraph.matchAll(/`([A-Z][A-Z_]*[A-Z])`/g)].map((m) => m[1]!))];
    expect(listed.sort()).toEqual(Object.keys(ERROR_CODES).sort());
  });

  it("each class carries its code and is a ToolSearchError", () => {
    const classes = errors as unknown as Record<string, new (...args: never[]) => errors.ToolSearchError>;
    for (const [code, row] of Object.entries(ERROR_CODES)) {
      expect(typeof classes[row.class], row.class).toBe("function");
      expect(classes[row.class]!.prototype).toBeInstanceOf(errors.ToolSearchError);
      void code;
    }
    const samples: Array<[errors.ToolSearchError, ErrorCode]> = [
      [new errors.CancelledError("x"), "CANCELLED"],
      [new errors.IndexClosedError(), "INDEX_CLOSED"],
      [new errors.EngineClosedError(), "ENGINE_CLOSED"],
      [new errors.HttpError("NOT_FOUND", "x"), "NOT_FOUND"],
    ];
    for (const [error, code] of samples) expect(error.code).toBe(code);
    expect(new errors.IndexClosedError()).toBeInstanceOf(errors.EngineClosedError);
    expect(new errors.HttpError("TOO_MANY_SESSIONS", "x").status).toBe(503);
    expect(new errors.HttpError("CONFIG_INVALID", "x").status).toBe(400);
  });

  it("errors outside errors.ts that reach a user carry a code: a usage error and a refused pattern are CONFIG_INVALID", () => {
    const usage = new UsageError("--port must be an integer", "usage: …");
    expect(usage).toBeInstanceOf(errors.ConfigInvalidError);
    expect(usage.toJSON()).toEqual({ code: "CONFIG_INVALID", message: "--port must be an integer" });
    let refused: unknown;
    try {
      linearRegExp("(?=a)b");
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(UnsupportedPatternError);
    expect(refused).toMatchObject({ code: "CONFIG_INVALID", message: expect.stringContaining("not supported by the linear-time regex engine") });
  });

  it("the error classes outside errors.ts that code tells apart by instanceof carry the code of what they become", () => {
    const samples: Array<[errors.ToolSearchError, ErrorCode, new (...args: never[]) => errors.ToolSearchError]> = [
      [new FrameTooLargeError(2, 1), "CODE_LIMIT", errors.CodeError],
      [new MessageTooLargeError(1), "TOOL_FAILED", errors.ToolFailedError],
      [new ChildStartError("not ready"), "SANDBOX_UNAVAILABLE", errors.SandboxUnavailableError],
      [new RecordDroppedError(0, 1), "CONFIG_INVALID", errors.ConfigInvalidError],
    ];
    for (const [error, code, base] of samples) {
      expect(error, error.name).toBeInstanceOf(base);
      expect(error.code, error.name).toBe(code);
    }
    expect(new MessageTooLargeError(1).name).toBe("MessageTooLargeError");
    expect(() => parsePath("a..b")).toThrow(ConfigPathError);
    expect(() => parsePath("a..b")).toThrow(errors.ConfigInvalidError);
  });
});
