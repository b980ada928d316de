/** jsonlSessionLog: one JSON line per event, appended, in a directory it creates; nothing after close. */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { jsonlSessionLog } from "../../src/telemetry/jsonl-session-log.js";
import type { SessionEvent } from "../../src/telemetry/types.js";

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("jsonlSessionLog", () => {
  it("appends one parseable line per event and stops writing once closed", async () => {
    dir = mkdtempSync(path.join(tmpdir(), "toolsearch-log-"));
    const file = path.join(dir, "nested", "runs.jsonl");
    const first = { type: "run_start", runId: "r1", text: "line\nbreak" } as unknown as SessionEvent;
    const second = { type: "run_end", runId: "r1" } as unknown as SessionEvent;
    const log = jsonlSessionLog(file);
    expect(log.file).toBe(file);
    log.write(first);
    log.write(second);
    await log.close();
    log.write(first);
    await log.close();
    const again = jsonlSessionLog(file);
    again.write(second);
    await again.close();
    const lines = readFileSync(file, "utf8").split("\n");
    expect(lines.pop()).toBe("");
    expect(lines.map((line) => JSON.parse(line) as unknown)).toEqual([first, second, second]);
  });

  it("needs a file path", () => {
    expect(() => jsonlSessionLog("")).toThrow(/file path/);
  });

  it("refuses a misspelt option before it creates the file: a privacy switch is never silently ignored", () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), "ts-jsonl-opts-")), "logs", "s.jsonl");
    expect(() => jsonlSessionLog(file, { recordQuery: true } as never)).toThrow(
      'jsonlSessionLog: unknown option "recordQuery" (did you mean "recordQueries"?)',
    );
    expect(() => jsonlSessionLog(file, { recordQueries: "yes" } as never)).toThrow("jsonlSessionLog.recordQueries: must be boolean");
    expect(existsSync(path.dirname(file))).toBe(false);
  });
});
