/**
 * The learned journal's bytes (journal-store.ts): a header, then frames appended one batch at a
 * time by any process sharing the folder.
 *
 *   file   = MAGIC (8) | header length (uint32 LE) | header JSON | [header MAC (32)] | frame*
 *   frame  = FRAME_MARK (4) | payload length (uint32 LE) | CRC-32 of writer+payload (uint32 LE)
 *            | writer (8) | payload | [MAC of writer+payload (32)] | payload length (uint32 LE) | END_MARK (4)
 *   payload = msgpack [scopes[], tools[], contributors[], rows[]],
 *             a row = [scopeIndex, toolIndex, term, count, sessions, at, contributorIndex[]]
 * (each scope, tool and contributor hash once per frame: a session's hash sits in every record it
 * taught, so this keeps both the file and, decoded, the heap small)
 *
 * A frame is the whole state of each record it names after a change: merging one is idempotent
 * (model.ts merge), so a frame read twice, or a record written by two processes, changes nothing.
 * The writer id lets a process skip its own frames without decoding them. The trailer (length and
 * END_MARK, the last bytes written) tells an appender whether the file ends in a whole frame. A
 * reader that meets bytes that are not a frame (a writer that died mid-write) looks for the next
 * FRAME_MARK. With a key (`indexCacheKey`), the header and every frame carry an HMAC-SHA256, and
 * a frame without a valid one is skipped: only holders of the key write what ranks.
 *
 * Hand-written framing around msgpackr's payloads: a length-prefixed record with a checksum and
 * a resync mark is a few lines, and no maintained library does an append-only log with in-file
 * recovery for Node without native code.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { crc32 } from "node:zlib";
import type { Packr } from "msgpackr";
import { lazyRequire } from "../lazy-require.js";
import type { LearnedRow } from "./model.js";

const JOURNAL_FORMAT = 1;
const MAGIC = Buffer.from("TSLEARN\n", "latin1");
const FRAME_MARK = Buffer.from("TSF1", "latin1");
const END_MARK = Buffer.from("TSE1", "latin1");
const MAC_BYTES = 32;
const WRITER_BYTES = 8;
const FRAME_HEAD = 4 + 4 + 4 + WRITER_BYTES;
const FRAME_TAIL = 4 + 4;
const MAX_HEADER_BYTES = 4_096;
/** A frame's payload is cut by its writer near TARGET_FRAME_BYTES; a reader refuses one over MAX_FRAME_BYTES. */
const TARGET_FRAME_BYTES = 256 * 1024;
const MAX_FRAME_BYTES = 8 * 1024 * 1024;
/** Rows in one frame at most, so that decoding one is a short task. */
const MAX_FRAME_ROWS = 2_000;
const MAX_TEXT = 1_024;
const MAX_SEEN = 64;

/** The header: which generation this file is and, after a compaction, where it came from. */
export interface JournalHeader {
  format: number;
  /** A random id, new at every compaction. */
  generation: string;
  /** The generation this file was compacted from, and the offset in it up to which the base holds everything. */
  from?: string;
  upTo?: number;
  /** Bytes of base frames right after the header; frames appended after compaction follow them. */
  baseBytes: number;
  mac?: "hmac-sha256";
}

/** msgpackr loads with the first record written or read, not with the package. */
const msgpackr = lazyRequire<typeof import("msgpackr")>("msgpackr");
let packr: Packr | undefined;
const packer = (): Packr => (packr ??= new (msgpackr().Packr)({ useRecords: false, mapsAsObjects: true }));

export function newWriterId(): Buffer {
  return randomBytes(WRITER_BYTES);
}

export function newGeneration(): string {
  return randomBytes(8).toString("hex");
}

function mac(key: Buffer, ...parts: Uint8Array[]): Buffer {
  const h = createHmac("sha256", key);
  for (const part of parts) h.update(part);
  return h.digest();
}

export function encodeHeader(header: JournalHeader, key: Buffer | undefined): Buffer {
  const json = Buffer.from(JSON.stringify({ ...header, ...(key !== undefined ? { mac: "hmac-sha256" } : {}) }), "utf8");
  const length = Buffer.alloc(4);
  length.writeUInt32LE(json.length);
  const signed = Buffer.concat([MAGIC, length, json]);
  return key === undefined ? signed : Buffer.concat([signed, mac(key, signed)]);
}

/** The header and where the frames start, or why the bytes are not a journal of ours. `bytes` holds at least the file's first 4 KiB (or all of it). */
export function decodeHeader(bytes: Buffer, key: Buffer | undefined): { header: JournalHeader; end: number } | string {
  if (bytes.length < MAGIC.length + 4 || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return "not a toolsearch learned journal";
  const length = bytes.readUInt32LE(MAGIC.length);
  if (length > MAX_HEADER_BYTES) return `header of ${length} bytes, over ${MAX_HEADER_BYTES}`;
  const jsonEnd = MAGIC.length + 4 + length;
  if (bytes.length < jsonEnd) return "truncated header";
  let value: unknown;
  try {
    value = JSON.parse(bytes.subarray(MAGIC.length + 4, jsonEnd).toString("utf8"));
  } catch {
    return "unreadable header";
  }
  if (!isHeader(value)) return "malformed header";
  if (value.format !== JOURNAL_FORMAT) return `format ${value.format}, not ${JOURNAL_FORMAT}`;
  if (key === undefined) return value.mac === undefined ? { header: value, end: jsonEnd } : "written with indexCacheKey, and no key is set";
  if (value.mac === undefined) return "no MAC (written without indexCacheKey), and a key is set";
  if (bytes.length < jsonEnd + MAC_BYTES) return "truncated header MAC";
  if (!timingSafeEqual(mac(key, bytes.subarray(0, jsonEnd)), bytes.subarray(jsonEnd, jsonEnd + MAC_BYTES)))
    return "header MAC mismatch (another key, or changed since)";
  return { header: value, end: jsonEnd + MAC_BYTES };
}

function isHeader(value: unknown): value is JournalHeader {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.format === "number" &&
    typeof v.generation === "string" &&
    v.generation.length <= 64 &&
    (v.from === undefined || (typeof v.from === "string" && v.from.length <= 64)) &&
    (v.upTo === undefined || (Number.isSafeInteger(v.upTo) && (v.upTo as number) >= 0)) &&
    Number.isSafeInteger(v.baseBytes) &&
    (v.baseBytes as number) >= 0 &&
    (v.mac === undefined || v.mac === "hmac-sha256")
  );
}

/** Rows as frames of at most MAX_FRAME_ROWS rows and about TARGET_FRAME_BYTES each. */
export function encodeFrames(rows: readonly LearnedRow[], writer: Buffer, key: Buffer | undefined): Buffer[] {
  const frames: Buffer[] = [];
  let start = 0;
  while (start < rows.length) {
    // Rows are cut by count; a batch whose payload is far over target is halved (rows with long seen lists).
    let end = Math.min(rows.length, start + MAX_FRAME_ROWS);
    let payload = encodePayload(rows, start, end);
    while (payload.length > TARGET_FRAME_BYTES * 4 && end - start > 1) {
      end = start + Math.ceil((end - start) / 2);
      payload = encodePayload(rows, start, end);
    }
    frames.push(frame(payload, writer, key));
    start = end;
  }
  return frames;
}

function encodePayload(rows: readonly LearnedRow[], start: number, end: number): Buffer {
  const scopes = new Map<string, number>();
  const tools = new Map<string, number>();
  const contributors = new Map<string, number>();
  const index = (map: Map<string, number>, value: string): number => {
    let i = map.get(value);
    if (i === undefined) map.set(value, (i = map.size));
    return i;
  };
  const packed: unknown[] = [];
  for (let i = start; i < end; i++) {
    const r = rows[i]!;
    packed.push([index(scopes, r.scope), index(tools, r.tool), r.term, r.count, r.sessions, r.at, r.seen.map((h) => index(contributors, h))]);
  }
  return packer().pack([[...scopes.keys()], [...tools.keys()], [...contributors.keys()], packed]);
}

function frame(payload: Buffer, writer: Buffer, key: Buffer | undefined): Buffer {
  const head = Buffer.alloc(FRAME_HEAD);
  FRAME_MARK.copy(head, 0);
  head.writeUInt32LE(payload.length, 4);
  head.writeUInt32LE(crc32(payload, crc32(writer)), 8);
  writer.copy(head, 12);
  const tail = Buffer.alloc(FRAME_TAIL);
  tail.writeUInt32LE(payload.length, 0);
  END_MARK.copy(tail, 4);
  return Buffer.concat(key === undefined ? [head, payload, tail] : [head, payload, mac(key, writer, payload), tail]);
}

/** One frame found in a buffer: its payload (still encoded) and writer. */
export interface RawFrame {
  writer: Buffer;
  payload: Buffer;
}

export interface FrameScan {
  frames: RawFrame[];
  /** Offset (in the buffer) after the last whole frame or skipped bytes: where the next scan starts. */
  next: number;
  /** Bytes that were not frames (a writer died mid-write), skipped. */
  skipped: number;
  /** Frames whose MAC did not check (another key, or changed): skipped. */
  forged: number;
}

/**
 * The whole frames in `bytes` from `start`. An incomplete frame at the end stops the scan (the
 * rest may still be being written, or arrive in the next read); bytes that are not a frame (a bad
 * mark, length or checksum) are skipped up to the next FRAME_MARK, and stop the scan where none follows.
 */
export function scanFrames(bytes: Buffer, start: number, key: Buffer | undefined): FrameScan {
  const frames: RawFrame[] = [];
  const macBytes = key === undefined ? 0 : MAC_BYTES;
  let at = start;
  let skipped = 0;
  let forged = 0;
  while (at + FRAME_HEAD <= bytes.length) {
    const length = bytes.readUInt32LE(at + 4);
    const whole = FRAME_HEAD + length + macBytes + FRAME_TAIL;
    const marked = bytes.compare(FRAME_MARK, 0, 4, at, at + 4) === 0 && length <= MAX_FRAME_BYTES;
    if (marked && at + whole > bytes.length) break;
    const writer = bytes.subarray(at + 12, at + FRAME_HEAD);
    const payload = bytes.subarray(at + FRAME_HEAD, at + FRAME_HEAD + length);
    const tailAt = at + FRAME_HEAD + length + macBytes;
    const sound =
      marked &&
      bytes.readUInt32LE(at + 8) === crc32(payload, crc32(writer)) &&
      bytes.readUInt32LE(tailAt) === length &&
      bytes.compare(END_MARK, 0, 4, tailAt + 4, tailAt + 8) === 0;
    if (!sound) {
      // No mark further on: the rest is left unread (a dead writer's torn end, which the next
      // appender cuts at this very offset; anything appended after it ends up past a mark).
      const next = bytes.indexOf(FRAME_MARK, at + 1);
      if (next === -1) break;
      skipped += next - at;
      at = next;
      continue;
    }
    if (key !== undefined && !timingSafeEqual(mac(key, writer, payload), bytes.subarray(tailAt - MAC_BYTES, tailAt))) forged++;
    else frames.push({ writer: Buffer.from(writer), payload });
    at += whole;
  }
  return { frames, next: at, skipped, forged };
}

/** Whether the bytes end with a whole frame's trailer (or are exactly the header): an appender may write after them. */
export function endsWhole(tail: Buffer): boolean {
  return tail.length >= FRAME_TAIL && tail.compare(END_MARK, 0, 4, tail.length - 4) === 0;
}

export const TRAILER_BYTES = FRAME_TAIL;

/** A frame's rows, each checked (anything malformed is dropped, never trusted); dates after `now` are taken as `now`. */
export function decodeRows(payload: Buffer, now: number): LearnedRow[] {
  let value: unknown;
  try {
    value = packer().unpack(payload);
  } catch {
    return [];
  }
  if (!Array.isArray(value) || value.length !== 4) return [];
  const [scopes, tools, contributors, rows] = value as unknown[][];
  if (!Array.isArray(scopes) || !Array.isArray(tools) || !Array.isArray(contributors) || !Array.isArray(rows)) return [];
  const out: LearnedRow[] = [];
  const entry = (list: unknown[], i: unknown): unknown => (typeof i === "number" ? list[i] : undefined);
  for (const r of rows) {
    if (!Array.isArray(r) || r.length !== 7) continue;
    const [s, t, term, count, sessions, at, seen] = r as unknown[];
    const hashes = Array.isArray(seen) ? seen.slice(-MAX_SEEN).map((i) => entry(contributors, i)) : undefined;
    const row = checkedRow(entry(scopes, s), entry(tools, t), term, count, sessions, at, hashes, now);
    if (row !== undefined) out.push(row);
  }
  return out;
}

const isText = (v: unknown): v is string => typeof v === "string" && v.length > 0 && v.length <= MAX_TEXT;

/** One row from outside (a file, an import), field by field; undefined when malformed. */
export function checkedRow(
  scope: unknown,
  tool: unknown,
  term: unknown,
  count: unknown,
  sessions: unknown,
  at: unknown,
  seen: unknown,
  now: number,
): LearnedRow | undefined {
  if (!isText(scope) || !isText(tool) || !isText(term)) return undefined;
  if (typeof count !== "number" || !Number.isFinite(count) || count < 0 || count > 1e9) return undefined;
  if (!Number.isSafeInteger(sessions) || (sessions as number) < 0) return undefined;
  if (typeof at !== "number" || !Number.isFinite(at) || at < 0) return undefined;
  const hashes = Array.isArray(seen) ? seen.filter((h): h is string => typeof h === "string" && h.length <= 64).slice(-MAX_SEEN) : [];
  // A date in the future would never decay: taken as now.
  return { scope, tool, term, count, sessions: Math.min(255, sessions as number), at: Math.min(at, now), seen: hashes };
}
