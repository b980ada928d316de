/**
 * The child's msgpack codec: the subset the bridge frames use (maps with string keys, strings,
 * 32-bit integers, float64, booleans, null, arrays), written to produce exactly the bytes the
 * parent's msgpackr (`useRecords: false, variableMapSize: true`) produces, and to read what it
 * writes. test/sandbox/frames.test.ts holds the two to the same bytes.
 *
 * Why not msgpackr itself in the child: the child runs from `--eval` with no fs grant, so whatever
 * it needs must be inlined into the bootstrap string. msgpackr's no-eval build
 * (dist/index-no-eval.min.js, 35 KB) does work there (no code generation when `useRecords` is
 * false, so `--disallow-code-generation-from-strings` does not break it), but compiling and
 * initialising it costs every child several milliseconds more CPU before `ready` (`node
 * dist/bench/code-mode/main.js` prints the comparison in its "… with msgpackr inlined" row;
 * docs/sandbox.md, "Wire format"). Child startup CPU is what bounds sustained throughput, and the
 * frames only carry flat envelopes (payloads travel as JSON text, see bridge/protocol.ts), so this
 * ~2 KB codec serves the child and msgpackr stays on the parent side, where it decodes and
 * validates every frame.
 *
 * This function is serialised with Function.prototype.toString into the child's `--eval` source
 * (child/source.ts): it must not refer to anything outside its own body except globals
 * (`Buffer`).
 */
export interface ChildCodec {
  encode(value: unknown): Buffer;
  decode(bytes: Uint8Array): unknown;
}

export function createChildCodec(): ChildCodec {
  "use strict";
  const parts: Buffer[] = [];

  function head(small: number, small1: number, c16: number, c32: number, n: number, limit: number): void {
    if (n < limit) parts.push(Buffer.of(small | n));
    else if (n < 0x100 && small1 >= 0) parts.push(Buffer.of(small1, n));
    else if (n < 0x10000) parts.push(Buffer.of(c16, n >> 8, n & 0xff));
    else {
      const b = Buffer.allocUnsafe(5);
      b[0] = c32;
      b.writeUInt32BE(n, 1);
      parts.push(b);
    }
  }

  function write(value: unknown): void {
    if (value === null || value === undefined) parts.push(Buffer.of(0xc0));
    else if (value === true) parts.push(Buffer.of(0xc3));
    else if (value === false) parts.push(Buffer.of(0xc2));
    else if (typeof value === "string") {
      const bytes = Buffer.from(value, "utf8");
      head(0xa0, 0xd9, 0xda, 0xdb, bytes.length, 0x20);
      parts.push(bytes);
    } else if (typeof value === "number") {
      let b: Buffer;
      if (value >>> 0 === value) {
        if (value < 0x80) b = Buffer.of(value);
        else if (value < 0x100) b = Buffer.of(0xcc, value);
        else if (value < 0x10000) b = Buffer.of(0xcd, value >> 8, value & 0xff);
        else {
          b = Buffer.allocUnsafe(5);
          b[0] = 0xce;
          b.writeUInt32BE(value, 1);
        }
      } else if (value >> 0 === value) {
        if (value >= -0x20) b = Buffer.of(0x100 + value);
        else if (value >= -0x80) b = Buffer.of(0xd0, value + 0x100);
        else if (value >= -0x8000) {
          b = Buffer.allocUnsafe(3);
          b[0] = 0xd1;
          b.writeInt16BE(value, 1);
        } else {
          b = Buffer.allocUnsafe(5);
          b[0] = 0xd2;
          b.writeInt32BE(value, 1);
        }
      } else {
        b = Buffer.allocUnsafe(9);
        b[0] = 0xcb;
        b.writeDoubleBE(value, 1);
      }
      parts.push(b);
    } else if (Array.isArray(value)) {
      head(0x90, -1, 0xdc, 0xdd, value.length, 0x10);
      for (const item of value) write(item);
    } else if (typeof value === "object") {
      const keys = Object.keys(value);
      head(0x80, -1, 0xde, 0xdf, keys.length, 0x10);
      for (const key of keys) {
        write(key);
        write((value as Record<string, unknown>)[key]);
      }
    } else throw new TypeError("cannot encode a " + typeof value);
  }

  function decode(bytes: Uint8Array): unknown {
    const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let pos = 0;
    function need(n: number): void {
      if (pos + n > buf.length) throw new RangeError("truncated msgpack data");
    }
    function str(n: number): string {
      need(n);
      const s = buf.toString("utf8", pos, pos + n);
      pos += n;
      return s;
    }
    function list(n: number): unknown[] {
      const out: unknown[] = [];
      for (let i = 0; i < n; i++) out.push(read());
      return out;
    }
    function map(n: number): Record<string, unknown> {
      const out: Record<string, unknown> = Object.create(null);
      for (let i = 0; i < n; i++) {
        const key = read();
        if (typeof key !== "string") throw new TypeError("non-string map key");
        out[key] = read();
      }
      return out;
    }
    function read(): unknown {
      need(1);
      const b = buf[pos++]!;
      if (b < 0x80) return b;
      if (b < 0x90) return map(b & 0x0f);
      if (b < 0xa0) return list(b & 0x0f);
      if (b < 0xc0) return str(b & 0x1f);
      if (b >= 0xe0) return b - 0x100;
      let v: number;
      switch (b) {
        case 0xc0:
          return null;
        case 0xc2:
          return false;
        case 0xc3:
          return true;
        case 0xcc:
          need(1);
          return buf[pos++];
        case 0xcd:
          need(2);
          v = buf.readUInt16BE(pos);
          pos += 2;
          return v;
        case 0xce:
          need(4);
          v = buf.readUInt32BE(pos);
          pos += 4;
          return v;
        case 0xd0:
          need(1);
          v = buf.readInt8(pos);
          pos += 1;
          return v;
        case 0xd1:
          need(2);
          v = buf.readInt16BE(pos);
          pos += 2;
          return v;
        case 0xd2:
          need(4);
          v = buf.readInt32BE(pos);
          pos += 4;
          return v;
        case 0xca:
          need(4);
          v = buf.readFloatBE(pos);
          pos += 4;
          return v;
        case 0xcb:
          need(8);
          v = buf.readDoubleBE(pos);
          pos += 8;
          return v;
        case 0xd9:
          need(1);
          return str(buf[pos++]!);
        case 0xda:
          need(2);
          v = buf.readUInt16BE(pos);
          pos += 2;
          return str(v);
        case 0xdb:
          need(4);
          v = buf.readUInt32BE(pos);
          pos += 4;
          return str(v);
        case 0xdc:
          need(2);
          v = buf.readUInt16BE(pos);
          pos += 2;
          return list(v);
        case 0xdd:
          need(4);
          v = buf.readUInt32BE(pos);
          pos += 4;
          return list(v);
        case 0xde:
          need(2);
          v = buf.readUInt16BE(pos);
          pos += 2;
          return map(v);
        case 0xdf:
          need(4);
          v = buf.readUInt32BE(pos);
          pos += 4;
          return map(v);
        default:
          throw new TypeError("unsupported msgpack type 0x" + b.toString(16));
      }
    }
    const value = read();
    if (pos !== buf.length) throw new RangeError("trailing bytes after msgpack value");
    return value;
  }

  return {
    encode(value: unknown): Buffer {
      parts.length = 0;
      write(value);
      const out = Buffer.concat(parts);
      parts.length = 0;
      return out;
    },
    decode,
  };
}
