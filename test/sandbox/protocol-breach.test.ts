/**
 * A child that breaks the bridge protocol (as one taken over by an escaped body might) is killed,
 * and the run says why; the parent neither crashes nor buffers more than one frame cap.
 * The "children" here are real processes started under the pool's own launch plan, running a
 * hostile script instead of the bootstrap.
 */
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { createChildCodec } from "../../src/sandbox/child/codec.js";
import { detectPermissionFlag, launchPlans } from "../../src/sandbox/pool/launch.js";
import { resolvePoolOptions } from "../../src/sandbox/pool/options.js";
import { ChildState, SandboxChild } from "../../src/sandbox/pool/sandbox-child.js";
import { fakeBridge, isAlive } from "./helpers.js";

const options = resolvePoolOptions({ maxFrameBytes: 100_000, maxResultBytes: 1000, maxLogBytes: 1000 });
const plan = launchPlans(options, detectPermissionFlag()!).at(-1)!; // plain node, same flags

/** A child script: `setup` runs first (before any frame), `onRun` once the parent's run frame arrives. */
function hostile(setup: string, onRun: string): string {
  return `"use strict";
    const fs = require("fs");
    const codec = (${createChildCodec.toString()})();
    const frame = (obj) => { const body = codec.encode(obj); const head = Buffer.alloc(4); head.writeUInt32BE(body.length); return Buffer.concat([head, body]); };
    const send = (obj) => fs.writeSync(1, frame(obj));
    const raw = (bytes) => fs.writeSync(1, bytes);
    ${setup}
    setImmediate(() => { fs.readSync(0, Buffer.alloc(65536)); ${onRun} });
    setInterval(() => {}, 60000);`;
}

function startHostile(setup: string, onRun: string): SandboxChild {
  return new SandboxChild({ plan, source: hostile(setup, onRun), cwd: tmpdir(), options });
}

describe("protocol breaches", () => {
  it.each([
    ["an unknown frame type", 'send({ v: 1, type: "shell", cmd: "id" });', "SANDBOX_UNAVAILABLE", /unknown frame type "shell"/],
    ["a wrong protocol version", 'send({ v: 9, type: "result", ok: true, value: "1" });', "SANDBOX_UNAVAILABLE", /protocol version 9/],
    ["a frame with an extra field", 'send({ v: 1, type: "result", ok: true, value: "1", exec: "x" });', "SANDBOX_UNAVAILABLE", /malformed "result"/],
    ["bytes that are not msgpack", "raw(Buffer.from([0, 0, 0, 3, 0xc1, 0xc1, 0xc1]));", "SANDBOX_UNAVAILABLE", /not valid msgpack/],
    ["a declared length over the cap", "const h = Buffer.alloc(4); h.writeUInt32BE(1 << 30); raw(h);", "CODE_LIMIT", /exceeds the 100000-byte frame limit/],
    ["a result whose value is not JSON", 'send({ v: 1, type: "result", ok: true, value: "{nope" });', "SANDBOX_UNAVAILABLE", /result value is not JSON/],
    [
      "bridge arguments that are not JSON",
      'send({ v: 1, type: "bridge", id: 1, op: "call", args: "[" });',
      "SANDBOX_UNAVAILABLE",
      /bridge arguments are not JSON/,
    ],
    ["a second ready frame", 'send({ v: 1, type: "ready" });', "SANDBOX_UNAVAILABLE", /unexpected "ready" frame while running/],
    ["an exit without a result", "process.exit(3);", "SANDBOX_UNAVAILABLE", /exited unexpectedly \(exit code 3\)/],
  ])("%s: the child is killed and the run says why", async (_name, onRun, code, message) => {
    const child = startHostile('send({ v: 1, type: "ready" });', onRun);
    await child.ready;
    const result = await child.run("return 1;", fakeBridge(), 10_000, undefined);
    expect(result).toMatchObject({ ok: false, error: { code } });
    expect(!result.ok && result.error.message).toMatch(message);
    await child.closed;
    expect(child.state).toBe(ChildState.Dead);
    expect(isAlive(child.pid!)).toBe(false);
  });

  it("a child that sends anything but ready first never becomes ready", async () => {
    const child = startHostile('send({ v: 1, type: "log", level: "log", message: "hi" });', "");
    await expect(child.ready).rejects.toThrow(/protocol breach: unexpected "log" frame while starting/);
    await child.closed;
    expect(child.state).toBe(ChildState.Dead);
  });

  it("a child that speaks while waiting for a body is killed", async () => {
    const child = startHostile('send({ v: 1, type: "ready" }); send({ v: 1, type: "log", level: "log", message: "early" });', "");
    await child.ready;
    await child.closed;
    expect(child.state).toBe(ChildState.Dead);
  });

  it("a flood of log frames is cut off at the log budget", async () => {
    const child = startHostile('send({ v: 1, type: "ready" });', 'for (;;) send({ v: 1, type: "log", level: "log", message: "x".repeat(100) });');
    await child.ready;
    const result = await child.run("return 1;", fakeBridge(), 10_000, undefined);
    expect(result).toMatchObject({ ok: false, error: { code: "CODE_LIMIT" } });
    expect(result.logs.reduce((n, l) => n + l.message.length, 0)).toBe(1000);
    await child.closed;
  });
});
