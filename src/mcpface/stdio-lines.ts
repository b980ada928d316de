/**
 * stdin cut into lines for the SDK's stdio transport, none longer than `gateway.maxBodyBytes`.
 * The SDK's own bound (ReadBuffer's maxBufferSize) throws on a long line and the transport then
 * closes for good: the client is answered nothing more, and the process sat on a stdin that
 * still read. Here a line past the bound is skipped as it streams by (never held whole), its
 * request is answered with an error through `refuse`, and the next line is served as usual.
 *
 * The id of a skipped request is looked for where clients write it: first after the opening
 * brace (and `"jsonrpc":"2.0"`), or last before the closing one (the SDK's clients); when it is
 * in neither, the answer carries id null, as JSON-RPC says for a request whose id cannot be read.
 */
import { Transform, type TransformCallback } from "node:stream";
import type { RequestId } from "@modelcontextprotocol/sdk/types.js";

/** Bytes kept of each end of a skipped line, to find its id. */
const EDGE_BYTES = 256;
const NEWLINE = 0x0a;
const ID_VALUE = String.raw`(-?\d{1,15}|"(?:[^"\\]|\\.){0,128}")`;
const ID_FIRST = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID_VALUE}`);
const ID_LAST = new RegExp(String.raw`"id"\s*:\s*${ID_VALUE}\s*\}\s*$`);

/** A line that was skipped: its id when found, and how long it was. */
export interface SkippedLine {
  id: RequestId | null;
  bytes: number;
}

export class LineLimit extends Transform {
  readonly #maxBytes: number;
  readonly #refuse: (line: SkippedLine) => void;
  /** The current line's pieces while it is within the bound. */
  #pieces: Buffer[] = [];
  #bytes = 0;
  /** The current line is past the bound: its first and last bytes only are kept. */
  #skipping = false;
  #head = Buffer.alloc(0);
  #tail = Buffer.alloc(0);

  constructor(maxBytes: number, refuse: (line: SkippedLine) => void) {
    super();
    this.#maxBytes = maxBytes;
    this.#refuse = refuse;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      this.#take(chunk.subarray(start, end));
      if (newline === -1) break;
      this.#endLine();
      start = newline + 1;
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    // A last line without its newline: the SDK would never read it either, so it is dropped.
    this.#reset();
    done();
  }

  #take(piece: Buffer): void {
    this.#bytes += piece.length;
    if (!this.#skipping && this.#bytes <= this.#maxBytes) {
      this.#pieces.push(piece);
      return;
    }
    if (!this.#skipping) {
      this.#skipping = true;
      const held = Buffer.concat([...this.#pieces, piece]);
      this.#pieces = [];
      this.#head = Buffer.from(held.subarray(0, EDGE_BYTES));
      this.#tail = Buffer.from(held.subarray(-EDGE_BYTES));
      return;
    }
    this.#tail = Buffer.from(Buffer.concat([this.#tail, piece]).subarray(-EDGE_BYTES));
  }

  #endLine(): void {
    if (this.#skipping) this.#refuse({ id: idOf(this.#head.toString("utf8"), this.#tail.toString("utf8")), bytes: this.#bytes });
    else this.push(Buffer.concat([...this.#pieces, Buffer.from("\n")]));
    this.#reset();
  }

  #reset(): void {
    this.#pieces = [];
    this.#bytes = 0;
    this.#skipping = false;
    this.#head = Buffer.alloc(0);
    this.#tail = Buffer.alloc(0);
  }
}

function idOf(head: string, tail: string): RequestId | null {
  const found = ID_FIRST.exec(head)?.[1] ?? ID_LAST.exec(tail.replace(/\r$/, ""))?.[1];
  if (found === undefined) return null;
  try {
    return JSON.parse(found) as RequestId;
  } catch {
    return null;
  }
}
