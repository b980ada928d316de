/**
 * The JSONL session log: one JSON object per line, appended. Each event is written with one
 * synchronous write(2) to a file opened in append mode, so a line that was logged is in the
 * file even if the process crashes right after (a buffered async stream would lose its tail),
 * and concurrent runs never interleave inside a line.
 *
 * The log holds who ran what: a new file is created mode 0600 (its folder, when created, 0700),
 * and an existing file keeps its mode (a wider one is warned about, never widened further).
 * Search query text is what users typed, so, as on OpenTelemetry spans, it is written only when
 * asked for (`recordQueries: true`); otherwise a search line carries each query's size instead
 * (`queryChars`, `queryTerms`).
 */
import { closeSync, fstatSync, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { ConfigInvalidError } from "../errors.js";
import type { SessionEvent, SessionLogSink } from "./types.js";
import { compileOptions } from "../validation/ajv.js";
import { boolean, object, withDefault, type TypeOf } from "../validation/typed-schema.js";

export interface JsonlSessionLog extends SessionLogSink {
  readonly file: string;
  close(): Promise<void>;
}

const optionsSchema = object({
  /** Write search query text (default false: each query's length and word count only). */
  recordQueries: withDefault(boolean(), false),
});

/** jsonlSessionLog's options: optionsSchema documents each one. */
export type JsonlSessionLogOptions = TypeOf<typeof optionsSchema>;

const checkOptions = compileOptions("jsonlSessionLog", optionsSchema);

type SearchEvent = Extract<SessionEvent, { type: "search" }>;

/** A search line as the file holds it without `recordQueries`: the text replaced by its size, query by query. */
export type SearchLineWithoutText = Omit<SearchEvent, "queries"> & { queryChars: number[]; queryTerms: number[] };

export function jsonlSessionLog(file: string, options: JsonlSessionLogOptions = {}): JsonlSessionLog {
  if (typeof file !== "string" || file.length === 0) throw new ConfigInvalidError("jsonlSessionLog needs a file path");
  // Checked, so that a misspelt privacy switch (`recordQuery: true`) is refused rather than ignored.
  const { recordQueries } = checkOptions(options, "jsonlSessionLog");
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  let fd: number | undefined = openSync(file, "a", 0o600);
  warnIfShared(fd, file);
  let failed = false;
  return {
    file,
    write(event: SessionEvent) {
      if (fd === undefined) return;
      try {
        writeSync(fd, `${JSON.stringify(recordQueries ? event : withoutQueryText(event))}\n`);
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

function withoutQueryText(event: SessionEvent): SessionEvent | SearchLineWithoutText {
  if (event.type !== "search") return event;
  const { queries, ...rest } = event;
  return { ...rest, queryChars: queries.map((q) => q.length), queryTerms: queries.map((q) => q.split(/\s+/).filter(Boolean).length) };
}

/** A file that already existed keeps its mode; one others can read is worth a word to the operator. */
function warnIfShared(fd: number, file: string): void {
  const mode = fstatSync(fd).mode & 0o777;
  if ((mode & 0o077) !== 0)
    process.emitWarning(`toolsearch: session log ${file} is mode ${mode.toString(8).padStart(4, "0")}: other users may read it; chmod 600 it`);
}
