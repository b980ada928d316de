/** definedProps: an object without its undefined-valued keys, typed as exactOptionalPropertyTypes wants it. */
import { describe, expect, expectTypeOf, it } from "vitest";
import { definedProps } from "../src/defined.js";

describe("definedProps", () => {
  it("leaves out the keys whose value is undefined, so they are absent rather than set to undefined", () => {
    const props = definedProps({ limit: undefined, cursor: "c1", signal: undefined });
    expect(props).toEqual({ cursor: "c1" });
    expect("limit" in props).toBe(false);
    expect(JSON.stringify(props)).toBe('{"cursor":"c1"}');
  });

  it("keeps null, 0, empty string, false and NaN: only undefined means absent", () => {
    expect(definedProps({ a: null, b: 0, c: "", d: false, e: Number.NaN })).toEqual({ a: null, b: 0, c: "", d: false, e: Number.NaN });
  });

  it("keeps the key order of its argument, as the JSON it is written into shows", () => {
    const json = JSON.stringify({ first: 1, ...definedProps({ z: "z", gone: undefined, a: "a", m: 0 }), last: 2 });
    expect(json).toBe('{"first":1,"z":"z","a":"a","m":0,"last":2}');
  });

  it("returns a new object and leaves its argument as it was", () => {
    const input = { kept: 1, dropped: undefined };
    const output = definedProps(input);
    expect(output).not.toBe(input);
    expect(input).toEqual({ kept: 1, dropped: undefined });
    expect(Object.keys(input)).toEqual(["kept", "dropped"]);
  });

  it("types keys that may be undefined as optional without undefined, and keeps the others required", () => {
    const limit = 10 as number | undefined;
    const label = "x" as string | null | undefined;
    const props = definedProps({ id: "t1", limit, label, count: 0 as number });
    expectTypeOf(props).toEqualTypeOf<{ id: string; count: number; limit?: number; label?: string | null }>();
    // Assignable where exactOptionalPropertyTypes rejects an explicit undefined.
    expectTypeOf(props).toExtend<{ id: string; limit?: number }>();
    expectTypeOf({ limit }).not.toExtend<{ limit?: number }>();
  });
});
