/**
 * Type guards for frames a child sends. The parent treats the child as untrusted: a frame is
 * accepted only if it has exactly the fields its type allows, each of the right type, and the
 * current protocol version. Anything else is a protocol breach and the child is killed.
 */
import { PROTOCOL_VERSION, type BridgeFrame, type ChildFrame, type LogFrame, type ProbeFacts, type ReadyFrame, type ResultFrame } from "./protocol.js";

type Check = { ok: true; frame: ChildFrame } | { ok: false; reason: string };

const BRIDGE_OPS = new Set(["search", "describe", "call"]);
const LOG_LEVELS = new Set(["log", "warn", "error"]);
const FAILURE_CODES = new Set(["CODE_SYNTAX", "CODE_THREW", "CODE_LIMIT"]);
const NET_OUTCOMES = new Set(["connected", "denied", "failed", "skipped"]);

function isRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** True when `value` has exactly the keys in `required`, plus any of `optional`. */
function hasKeys(value: Record<string, unknown>, required: readonly string[], optional: readonly string[] = []): boolean {
  const keys = Object.keys(value);
  for (const key of required) if (!Object.hasOwn(value, key)) return false;
  return keys.every((key) => required.includes(key) || optional.includes(key));
}

const isString = (v: unknown): v is string => typeof v === "string";
const isId = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v > 0;

function isProbe(value: unknown): value is ProbeFacts {
  return (
    isRecord(value) &&
    hasKeys(value, ["pid", "permission", "codegenBlocked", "interfaces", "net"]) &&
    typeof value.pid === "number" &&
    typeof value.permission === "boolean" &&
    typeof value.codegenBlocked === "boolean" &&
    Array.isArray(value.interfaces) &&
    value.interfaces.every(isString) &&
    NET_OUTCOMES.has(value.net as string)
  );
}

function isReady(f: Record<string, unknown>): f is Record<string, unknown> & ReadyFrame {
  return hasKeys(f, ["v", "type"], ["probe"]) && (f.probe === undefined || isProbe(f.probe));
}

function isBridge(f: Record<string, unknown>): f is Record<string, unknown> & BridgeFrame {
  return hasKeys(f, ["v", "type", "id", "op", "args"]) && isId(f.id) && BRIDGE_OPS.has(f.op as string) && isString(f.args);
}

function isLog(f: Record<string, unknown>): f is Record<string, unknown> & LogFrame {
  return hasKeys(f, ["v", "type", "level", "message"]) && LOG_LEVELS.has(f.level as string) && isString(f.message);
}

function isResult(f: Record<string, unknown>): f is Record<string, unknown> & ResultFrame {
  if (f.ok === true) return hasKeys(f, ["v", "type", "ok", "value"]) && isString(f.value);
  if (f.ok !== false || !hasKeys(f, ["v", "type", "ok", "error"])) return false;
  const e = f.error;
  return (
    isRecord(e) &&
    hasKeys(e, ["code", "message"], ["stack"]) &&
    FAILURE_CODES.has(e.code as string) &&
    isString(e.message) &&
    (e.stack === undefined || isString(e.stack))
  );
}

const GUARDS: Record<ChildFrame["type"], (f: Record<string, unknown>) => boolean> = {
  ready: isReady,
  bridge: isBridge,
  log: isLog,
  result: isResult,
};

/** Checks one decoded child frame; the reason names what was wrong. */
export function checkChildFrame(value: unknown): Check {
  if (!isRecord(value)) return { ok: false, reason: "frame is not a map" };
  if (value.v !== PROTOCOL_VERSION) return { ok: false, reason: `protocol version ${String(value.v)} (expected ${PROTOCOL_VERSION})` };
  const type = value.type;
  if (typeof type !== "string" || !Object.hasOwn(GUARDS, type)) return { ok: false, reason: `unknown frame type ${JSON.stringify(type)}` };
  if (!GUARDS[type as ChildFrame["type"]](value)) return { ok: false, reason: `malformed "${type}" frame` };
  return { ok: true, frame: value as unknown as ChildFrame };
}
