/**
 * The JSONL session log: one JSON object per line, appended. Each event is written with one
 * synchronous write(2) to a file opened in append mode, so a line that was logged is in the
 * file even if the process crashes right after (a buffered async stream would lose its tail),
 * and concurrent runs never interleave inside a line.
 */
import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { ConfigInvalidError } from "../errors.js";
import type { SessionEvent, SessionLogSink } from "./types.js";

export interface JsonlSessionLog extends SessionLogSink {
  readonly file: string;
  close(): Promise<void>;
}

export function jsonlSessionLog(file: string): JsonlSessionLog {
  if (typeof file !== "string" || file.length === 0) throw new ConfigInvalidError("jsonlSessionLog needs a file path");
  mkdirSync(dirname(file), { recursive: true });
  let fd: number | undefined = openSync(file, "a");
  let failed = false;
  return {
    file,
    write(event: SessionEvent) {
      if (fd === undefined) return;
      try {
        writeSync(fd, `${JSON.stringify(event)}\n`);
      } catch (error) {
        // Logging must never fail a run; report once, then keep trying.
        if (!failed) process.emitWarning(`toolsearch: session log ${file} write failed: ${(error as Error).message}`);
        failed = true;
      }
    },
    async close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}
