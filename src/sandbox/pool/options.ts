/**
 * PoolOptions, checked once at the entry: each bad value is named with the option, the value and
 * its type, and defaults are filled in so the rest of the pool reads plain numbers.
 */
import { ConfigInvalidError } from "../../errors.js";
import type { PoolOptions } from "../types.js";

export interface ResolvedPoolOptions {
  prefork: number;
  maxConcurrent: number;
  maxQueue: number;
  maxOldSpaceSizeMb: number;
  maxMemoryMb: number;
  maxResultBytes: number;
  maxLogBytes: number;
  maxBridgeCalls: number;
  maxConcurrentBridgeCalls: number;
  maxFrameBytes: number;
  namespaces: boolean;
  guardParentInspector: boolean;
  startTimeoutMs: number;
}

const KIB = 1024;
const MIB = 1024 * KIB;

/** Bytes a frame needs beyond its payload (envelope, keys, length prefix). */
const FRAME_OVERHEAD = 64 * KIB;

type IntOption = Exclude<keyof ResolvedPoolOptions, "namespaces" | "guardParentInspector" | "maxFrameBytes" | "maxConcurrent">;
const RANGES: Record<IntOption | "maxFrameBytes" | "maxConcurrent", readonly [number, number]> = {
  prefork: [0, 64],
  maxConcurrent: [1, 256],
  maxQueue: [0, 100_000],
  maxOldSpaceSizeMb: [16, 16_384],
  maxMemoryMb: [128, 65_536],
  maxResultBytes: [1, 256 * MIB],
  maxLogBytes: [0, 64 * MIB],
  maxBridgeCalls: [0, 1_000_000],
  maxConcurrentBridgeCalls: [1, 10_000],
  maxFrameBytes: [1 * KIB, 1024 * MIB],
  startTimeoutMs: [100, 600_000],
};

const DEFAULTS: Record<IntOption, number> = {
  prefork: 2,
  maxQueue: 64,
  maxOldSpaceSizeMb: 64,
  maxMemoryMb: 512,
  maxResultBytes: 1 * MIB,
  maxLogBytes: 64 * KIB,
  maxBridgeCalls: 256,
  maxConcurrentBridgeCalls: 16,
  startTimeoutMs: 15_000,
};

function describe(value: unknown): string {
  return `${typeof value === "string" ? JSON.stringify(value) : String(value)} (${value === null ? "null" : typeof value})`;
}

function int(options: Record<string, unknown>, name: keyof typeof RANGES, fallback: number): number {
  const value = options[name];
  if (value === undefined) return fallback;
  const [min, max] = RANGES[name];
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new ConfigInvalidError(`pool.${name} must be an integer from ${min} to ${max}; got ${describe(value)}.`);
  }
  return value;
}

function bool(options: Record<string, unknown>, name: "namespaces" | "guardParentInspector", fallback: boolean): boolean {
  const value = options[name];
  if (value === undefined) return fallback;
  if (typeof value !== "boolean") throw new ConfigInvalidError(`pool.${name} must be true or false; got ${describe(value)}.`);
  return value;
}

export function resolvePoolOptions(options: PoolOptions | undefined): ResolvedPoolOptions {
  if (options !== undefined && (typeof options !== "object" || options === null || Array.isArray(options))) {
    throw new ConfigInvalidError(`pool options must be an object; got ${describe(options)}.`);
  }
  const o = (options ?? {}) as Record<string, unknown>;
  const known = new Set<string>([...Object.keys(RANGES), "namespaces", "guardParentInspector"]);
  for (const key of Object.keys(o)) {
    if (!known.has(key)) throw new ConfigInvalidError(`pool.${key} is not a pool option; known: ${[...known].sort().join(", ")}.`);
  }
  const ints = Object.fromEntries(
    (Object.keys(DEFAULTS) as IntOption[]).map((name) => [name, int(o, name, DEFAULTS[name])]),
  ) as Record<IntOption, number>;
  const maxConcurrent = int(o, "maxConcurrent", Math.max(ints.prefork, 1));
  // A frame must hold the largest result, and a log line cut at the log budget (UTF-8: ≤ 3 bytes a char).
  const needed = Math.max(ints.maxResultBytes, 3 * (ints.maxLogBytes + 1)) + FRAME_OVERHEAD;
  const maxFrameBytes = int(o, "maxFrameBytes", Math.max(4 * MIB, needed));
  if (maxFrameBytes < needed) {
    throw new ConfigInvalidError(
      `pool.maxFrameBytes (${maxFrameBytes}) must be at least ${needed}: the largest result (maxResultBytes ${ints.maxResultBytes}) or log line (3 × maxLogBytes ${ints.maxLogBytes}) plus ${FRAME_OVERHEAD} bytes of envelope.`,
    );
  }
  if (ints.maxMemoryMb < ints.maxOldSpaceSizeMb + 128) {
    throw new ConfigInvalidError(
      `pool.maxMemoryMb (${ints.maxMemoryMb}) must be at least maxOldSpaceSizeMb (${ints.maxOldSpaceSizeMb}) + 128: Node needs that much beyond its old space to start.`,
    );
  }
  return {
    ...ints,
    maxConcurrent,
    maxFrameBytes,
    namespaces: bool(o, "namespaces", process.platform === "linux"),
    guardParentInspector: bool(o, "guardParentInspector", true),
  };
}
