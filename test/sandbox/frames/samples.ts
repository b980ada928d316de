/**
 * The frames whose bytes are saved next to this file (`<name>.hex`: the whole frame, length
 * prefix included, as hex). Changing the wire format means changing these on purpose:
 * regenerate by deleting the .hex files and running
 * `UPDATE_FRAMES=1 npx vitest run test/sandbox/frames.test.ts`.
 */
import type { Frame } from "../../../src/sandbox/bridge/protocol.js";

export const SAMPLE_FRAMES: Record<string, Frame> = {
  ready: { v: 1, type: "ready" },
  "ready-probe": {
    v: 1,
    type: "ready",
    probe: { pid: 1, permission: true, codegenBlocked: true, interfaces: ["lo"], net: "failed" },
  },
  run: {
    v: 1,
    type: "run",
    code: 'return await openclaw.tools.search("weather");',
    limits: { resultBytes: 1048576, logBytes: 65536, frameBytes: 4194304 },
  },
  bridge: { v: 1, type: "bridge", id: 2, op: "call", args: '["core:weather",{"city":"Zürich"}]' },
  "bridge-result-ok": { v: 1, type: "bridge-result", id: 2, ok: true, value: '{"tempC":21}' },
  "bridge-result-error": {
    v: 1,
    type: "bridge-result",
    id: 3,
    ok: false,
    error: { code: "APPROVAL_DENIED", message: "The user denied sending this email." },
  },
  log: { v: 1, type: "log", level: "warn", message: "retrying ✓" },
  "result-ok": { v: 1, type: "result", ok: true, value: '{"city":"Paris","tempC":21}' },
  "result-error": {
    v: 1,
    type: "result",
    ok: false,
    error: { code: "CODE_THREW", message: "TypeError: bad input", stack: "TypeError: bad input\n    at code.js:1:7" },
  },
};
