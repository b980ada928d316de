/**
 * Parent-side framing: msgpackr for the maps, a 4-byte big-endian length in front of each.
 * `variableMapSize` makes msgpackr write the smallest map header (fixmap for small maps), which is
 * what the child's codec writes too, so both sides produce the same bytes for the same frame.
 */
import { Packr } from "msgpackr";
import { FRAME_HEADER_BYTES, type Frame } from "./protocol.js";
import { CodeError } from "../../errors.js";

const packr = new Packr({ useRecords: false, variableMapSize: true, mapsAsObjects: true });

/** One frame as bytes on the wire (length prefix included). */
export function encodeFrame(frame: Frame): Buffer {
  const body = packr.pack(frame);
  const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES + body.length);
  out.writeUInt32BE(body.length, 0);
  body.copy(out, FRAME_HEADER_BYTES);
  return out;
}

/** Decodes one frame body (no length prefix). Throws on malformed or trailing data. */
export function decodeFrameBody(body: Uint8Array): unknown {
  return packr.unpack(body);
}

/** CODE_LIMIT: a run that sends or asks for a frame over maxFrameBytes ends with it (sandbox-child.ts). */
export class FrameTooLargeError extends CodeError {
  constructor(
    readonly bytes: number,
    readonly limit: number,
  ) {
    super("CODE_LIMIT", `a frame of ${bytes} bytes exceeds the ${limit}-byte frame limit`);
  }
}

/**
 * Splits a byte stream into frame bodies. Rejects a declared length over `maxFrameBytes` as soon
 * as the header arrives, so a lying child cannot make the parent buffer more than one cap's worth.
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;

  constructor(private readonly maxFrameBytes: number) {}

  /** Adds bytes; returns every complete frame body now available. Throws FrameTooLargeError. */
  push(chunk: Buffer): Buffer[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const bodies: Buffer[] = [];
    while (this.buffered >= FRAME_HEADER_BYTES) {
      const data = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.buffered);
      const length = data.readUInt32BE(0);
      if (length > this.maxFrameBytes) throw new FrameTooLargeError(length, this.maxFrameBytes);
      const end = FRAME_HEADER_BYTES + length;
      if (data.length < end) {
        this.chunks = [data];
        break;
      }
      bodies.push(data.subarray(FRAME_HEADER_BYTES, end));
      const rest = data.subarray(end);
      this.chunks = rest.length > 0 ? [rest] : [];
      this.buffered = rest.length;
    }
    return bodies;
  }
}
