/**
 * The validators ajv generates ahead of time (src/generated/validators, by
 * scripts/generate-validators.ts): they are what the generator makes of today's schemas (a schema
 * edited without regenerating fails here), and they answer as ajv compiling the schema at run time
 * does, errors and defaults included.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { createToolSearch } from "../../src/index.js";
import { compileOptions, requireGenerated } from "../../src/validation/ajv.js";
import { inputSchemaProblem } from "../../src/catalog/validate-definition.js";
import { ROOT } from "../e2e/processes.js";

const DIR = path.join(ROOT, "src/generated/validators");

describe("generated validators", () => {
  it("are what the generator makes of today's schemas (run `npm run build && node dist/scripts/generate-validators.js` after changing one)", async () => {
    // The generator in a fresh module graph, as its own process has it: this project's test files
    // share their worker's modules (isolate: false), and one may have declared a schema of its own.
    compileOptions("declaredByAnotherTest", { type: "object" });
    vi.resetModules();
    const { draft07ValidatorSource, optionValidatorSources } = await import("../../scripts/generate-validators.js");
    const sources = await optionValidatorSources();
    expect(sources.has("declaredByAnotherTest")).toBe(false);
    const expected = new Map([...sources].map(([name, source]) => [`${name}.cjs`, source]));
    expected.set("draft07.cjs", draft07ValidatorSource());
    expect(readdirSync(DIR).sort()).toEqual([...expected.keys()].sort());
    for (const [file, source] of expected) expect(readFileSync(path.join(DIR, file), "utf8"), file).toBe(source);
  });

  it("check as the compiled schema does: the same errors, the same defaults", async () => {
    await expect(createToolSearch({ nope: 1 } as never)).rejects.toThrow(/unknown option "nope"/);
    await expect(createToolSearch({ limits: { argsDepth: 0 } })).rejects.toThrow(/limits\.argsDepth: must be an integer from 1 to 10000; got 0/);
    await expect(createToolSearch({ sessionLog: {} as never })).rejects.toThrow(/sessionLog: must be a sink with a write\(event\) method/);
    await expect(createToolSearch({ onSourceDown: 1 as never })).rejects.toThrow(/onSourceDown: must be a function \(status\) => void; got 1/);
    const { schema } = requireGenerated("poolOptions");
    // The same schema under a name with no generated validator: compiled by ajv at its first check.
    const compiled = compileOptions("poolOptionsCompiledHere", JSON.parse(schema) as object);
    const generated = compileOptions("poolOptions", JSON.parse(schema) as object);
    expect(generated({}, "pool")).toEqual(compiled({}, "pool"));
    const message = (check: typeof compiled) => {
      try {
        check({ prefork: -1, maxQueue: "x", extra: true }, "pool");
        return "";
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(message(generated)).not.toBe("");
    expect(message(generated)).toBe(message(compiled));
  });

  it("a schema changed since generation is compiled at run time, not checked by the stale validator", () => {
    const check = compileOptions("poolOptions", { type: "object", properties: { prefork: { type: "string" } } });
    expect(check({ prefork: "two" }, "pool")).toEqual({ prefork: "two" });
    expect(() => check({ prefork: 2 }, "pool")).toThrow(/pool\.prefork: must be string/);
  });

  it("the draft-07 meta-schema refuses what ajv's validateSchema refuses", () => {
    expect(inputSchemaProblem({ type: "object", properties: { a: { type: "string" } }, required: ["a"] })).toBeUndefined();
    expect(inputSchemaProblem({ type: "no-such-type" })).toMatchObject({
      kind: "invalid",
      detail: expect.stringMatching(/^data\/type must be equal to one of the allowed values/),
    });
    expect(inputSchemaProblem({ required: ["a", "a"] })).toMatchObject({
      kind: "invalid",
      detail: expect.stringMatching(/data\/required must NOT have duplicate items/),
    });
    expect(inputSchemaProblem({ properties: { a: { minLength: -1 } } })).toMatchObject({ kind: "invalid" });
  });
});
