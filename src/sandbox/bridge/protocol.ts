/**
 * The bridge wire format between the pool (parent) and a sandbox child.
 *
 * Every frame is a 4-byte big-endian length followed by one msgpack map; every map carries the
 * protocol version `v`. Structured payloads (bridge arguments, tool results, the body's return
 * value) travel as JSON text inside the frame, not as msgpack values: on the child side they
 * cross into the body's vm context, where the only way to build them without handing the body a
 * host-realm object is the context's own JSON.parse, so the child never decodes and re-encodes
 * them; on the parent side JSON.parse of text the child wrote can only yield plain data (no
 * msgpack extension types such as Date, Map, Error or RegExp).
 *
 * Direction parent → child: `run`, `bridge-result`. Direction child → parent: `ready`, `bridge`,
 * `log`, `result`. Saved samples under test/sandbox/frames/ pin the bytes.
 */
export const PROTOCOL_VERSION = 1;

export type BridgeOp = "search" | "describe" | "call";
export type LogLevel = "log" | "warn" | "error";
/** The failure codes a child may put in a `result` frame. */
export type ChildFailureCode = "CODE_SYNTAX" | "CODE_THREW" | "CODE_LIMIT";

/** What a probe child found out about its own process (sent once, in its `ready` frame). */
export interface ProbeFacts {
  /** 1 when the child is PID 1 of a fresh PID namespace. */
  pid: number;
  /** The permission model is on and grants neither fs.read nor child processes. */
  permission: boolean;
  /** `new Function("...")` throws in the child's main realm. */
  codegenBlocked: boolean;
  /** Names of the network interfaces the child can see. */
  interfaces: string[];
  /** Outcome of connecting to the parent's loopback probe server. */
  net: "connected" | "denied" | "failed" | "skipped";
}

export interface ReadyFrame {
  v: typeof PROTOCOL_VERSION;
  type: "ready";
  probe?: ProbeFacts;
}

export interface RunLimits {
  resultBytes: number;
  logBytes: number;
  frameBytes: number;
}

export interface RunFrame {
  v: typeof PROTOCOL_VERSION;
  type: "run";
  code: string;
  limits: RunLimits;
}

export interface BridgeFrame {
  v: typeof PROTOCOL_VERSION;
  type: "bridge";
  id: number;
  op: BridgeOp;
  /** JSON text of the argument list, e.g. `["weather",{"limit":3}]`. */
  args: string;
}

export type BridgeResultFrame =
  | { v: typeof PROTOCOL_VERSION; type: "bridge-result"; id: number; ok: true; value: string }
  | { v: typeof PROTOCOL_VERSION; type: "bridge-result"; id: number; ok: false; error: { code: string; message: string } };

export interface LogFrame {
  v: typeof PROTOCOL_VERSION;
  type: "log";
  level: LogLevel;
  message: string;
}

export type ResultFrame =
  | { v: typeof PROTOCOL_VERSION; type: "result"; ok: true; value: string }
  | {
      v: typeof PROTOCOL_VERSION;
      type: "result";
      ok: false;
      error: { code: ChildFailureCode; message: string; stack?: string };
    };

export type ChildFrame = ReadyFrame | BridgeFrame | LogFrame | ResultFrame;
export type ParentFrame = RunFrame | BridgeResultFrame;
export type Frame = ChildFrame | ParentFrame;

/** Bytes in the length prefix. */
export const FRAME_HEADER_BYTES = 4;
