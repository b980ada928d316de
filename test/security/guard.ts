/**
 * Shared checks for the security suites: the parent must come out of every attack unchanged
 * (no new globals, no polluted prototypes, no inspector), and no sandbox process may outlive its
 * pool.
 */
import inspector from "node:inspector";
import { expect } from "vitest";

export interface ParentSnapshot {
  globals: string[];
  objectProto: string[];
  arrayProto: string[];
  functionProto: string[];
}

export function snapshotParent(): ParentSnapshot {
  return {
    globals: Object.getOwnPropertyNames(globalThis).sort(),
    objectProto: Reflect.ownKeys(Object.prototype).map(String).sort(),
    arrayProto: Reflect.ownKeys(Array.prototype).map(String).sort(),
    functionProto: Reflect.ownKeys(Function.prototype).map(String).sort(),
  };
}

export function expectParentUnchanged(before: ParentSnapshot): void {
  expect(snapshotParent()).toEqual(before);
  expect(inspector.url()).toBeUndefined();
}

/**
 * Helpers prepended to attack bodies. `foreign(v)` is true when v is an object or function whose
 * prototype chain does not end at this context's Object.prototype — i.e. it came from another
 * realm. `grab(v)` tries the classic routes from such a value to `process`.
 */
export const BODY_PRELUDE = `
const ROOT = Object.prototype;
function foreign(v) {
  if (v === null || (typeof v !== "object" && typeof v !== "function")) return false;
  let o = v;
  for (let i = 0; i < 100; i++) {
    const p = Object.getPrototypeOf(o);
    if (p === null) return o !== ROOT && o !== v;
    o = p;
  }
  return true;
}
function grab(v) {
  const routes = [
    () => v.constructor.constructor("return process")(),
    () => v.constructor("return process")(),
    () => Object.getPrototypeOf(v).constructor.constructor("return process")(),
  ];
  for (const route of routes) {
    try { const p = route(); if (p && typeof p.pid === "number") return p; } catch {}
  }
  return undefined;
}
`;
