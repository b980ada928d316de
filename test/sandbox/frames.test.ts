/** Wire format: saved sample frames, both codecs held to the same bytes, the parent's frame checks. */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Packr } from "msgpackr";
import { describe, expect, it } from "vitest";
import { decodeFrameBody, encodeFrame, FrameReader, FrameTooLargeError } from "../../src/sandbox/bridge/codec.js";
import { checkChildFrame } from "../../src/sandbox/bridge/validate.js";
import { createChildCodec } from "../../src/sandbox/child/codec.js";
import { SAMPLE_FRAMES } from "./frames/samples.js";

const DIR = join(import.meta.dirname, "frames");
const toHex = (bytes: Uint8Array) =>
  (
    Buffer.from(bytes)
      .toString("hex")
      .match(/.{1,64}/g) ?? []
  ).join("\n") + "\n";
const fromHex = (text: string) => Buffer.from(text.replace(/\s+/g, ""), "hex");
const child = createChildCodec();

describe("saved sample frames", () => {
  for (const [name, frame] of Object.entries(SAMPLE_FRAMES)) {
    it(`${name}: encodes to the saved bytes and decodes from them, on both sides`, () => {
      const file = join(DIR, `${name}.hex`);
      const encoded = encodeFrame(frame);
      if (!existsSync(file) && process.env.UPDATE_FRAMES === "1") writeFileSync(file, toHex(encoded));
      const saved = fromHex(readFileSync(file, "utf8"));
      expect(encoded.equals(saved)).toBe(true);
      expect(saved.readUInt32BE(0)).toBe(saved.length - 4);
      const body = saved.subarray(4);
      expect(decodeFrameBody(body)).toEqual(frame);
      // The child's hand-written codec writes and reads exactly the same bytes.
      expect(child.encode(frame).equals(body)).toBe(true);
      expect({ ...(child.decode(body) as object) }).toEqual(JSON.parse(JSON.stringify(frame)));
    });
  }
});

describe("child codec", () => {
  const packr = new Packr({ useRecords: false, variableMapSize: true, mapsAsObjects: true });
  const values: unknown[] = [
    0,
    1,
    127,
    128,
    255,
    256,
    65535,
    65536,
    2 ** 32 - 1,
    -1,
    -32,
    -33,
    -128,
    -129,
    -32768,
    -32769,
    -(2 ** 31),
    1.5,
    -0.25,
    2 ** 40,
    Number.MAX_SAFE_INTEGER,
    1e300,
    true,
    false,
    null,
    "",
    "a",
    "x".repeat(31),
    "x".repeat(32),
    "x".repeat(255),
    "x".repeat(256),
    "ü".repeat(40),
    "x".repeat(70000),
    "😀 emoji",
    [],
    [1, [2, [3]]],
    Array.from({ length: 16 }, (_, i) => i),
    Array.from({ length: 70000 }, () => 0),
    {},
    { a: { b: { c: "d" } } },
    Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${i}`, i])),
  ];
  it("matches msgpackr byte for byte on every type and size class it uses", () => {
    for (const value of values) {
      const ours = child.encode(value);
      expect(ours.equals(packr.pack(value)), JSON.stringify(value)?.slice(0, 40)).toBe(true);
      expect(packr.unpack(ours)).toEqual(value);
      const back = child.decode(packr.pack(value));
      expect(JSON.parse(JSON.stringify(back))).toEqual(value);
    }
  });
  it("rejects truncated data, trailing bytes and types the bridge never uses", () => {
    expect(() => child.decode(Buffer.from([0x92, 0x01]))).toThrow(/truncated/);
    expect(() => child.decode(Buffer.from([0x01, 0x02]))).toThrow(/trailing/);
    expect(() => child.decode(Buffer.from([0xc4, 0x01, 0x00]))).toThrow(/unsupported/);
  });
  it("decodes maps into null-prototype objects (no __proto__ setter)", () => {
    const decoded = child.decode(packr.pack({ __proto__x: 1, ["__proto__"]: { polluted: true } })) as Record<string, unknown>;
    expect(Object.getPrototypeOf(decoded)).toBe(null);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("frame reader", () => {
  it("reassembles frames split across chunks and several frames in one chunk", () => {
    const a = encodeFrame(SAMPLE_FRAMES.log!);
    const b = encodeFrame(SAMPLE_FRAMES["result-ok"]!);
    const all = Buffer.concat([a, b]);
    const reader = new FrameReader(1024);
    const out: unknown[] = [];
    for (let i = 0; i < all.length; i += 3) out.push(...reader.push(all.subarray(i, i + 3)).map(decodeFrameBody));
    expect(out).toEqual([SAMPLE_FRAMES.log, SAMPLE_FRAMES["result-ok"]]);
    expect(new FrameReader(1024).push(all).map(decodeFrameBody)).toEqual(out);
  });
  it("refuses a declared length over the cap as soon as the header arrives", () => {
    const reader = new FrameReader(100);
    const header = Buffer.alloc(4);
    header.writeUInt32BE(101);
    expect(() => reader.push(header)).toThrow(FrameTooLargeError);
  });
});

describe("child frame checks", () => {
  it("accepts every child frame type in its sample form", () => {
    for (const name of ["ready", "ready-probe", "bridge", "log", "result-ok", "result-error"]) {
      expect(checkChildFrame(decodeFrameBody(encodeFrame(SAMPLE_FRAMES[name]!).subarray(4))).ok, name).toBe(true);
    }
  });
  it.each([
    ["not a map", [1, 2], /not a map/],
    ["wrong version", { v: 2, type: "ready" }, /protocol version 2/],
    ["parent-only type", { v: 1, type: "run", code: "x", limits: {} }, /unknown frame type "run"/],
    ["unknown type", { v: 1, type: "hello" }, /unknown frame type/],
    ["extra field", { v: 1, type: "ready", extra: 1 }, /malformed "ready"/],
    ["bad op", { v: 1, type: "bridge", id: 1, op: "spawn", args: "[]" }, /malformed "bridge"/],
    ["id not positive", { v: 1, type: "bridge", id: 0, op: "call", args: "[]" }, /malformed "bridge"/],
    ["args not text", { v: 1, type: "bridge", id: 1, op: "call", args: ["x"] }, /malformed "bridge"/],
    ["bad log level", { v: 1, type: "log", level: "debug", message: "x" }, /malformed "log"/],
    ["parent failure code", { v: 1, type: "result", ok: false, error: { code: "POOL_SATURATED", message: "x" } }, /malformed "result"/],
    ["ok result without value", { v: 1, type: "result", ok: true }, /malformed "result"/],
    ["date where text belongs", { v: 1, type: "log", level: "log", message: new Date(0) }, /malformed "log"/],
  ])("rejects %s", (_name, frame, reason) => {
    const check = checkChildFrame(decodeFrameBody(encodeFrame(frame as never).subarray(4)));
    expect(check.ok).toBe(false);
    expect(!check.ok && check.reason).toMatch(reason);
  });
});
