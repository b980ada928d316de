/** Tools for the in-band outcome tests (issue 23): a real result shaped like a failure, and a plain throw. */
import type { ToolDefinition } from "../../src/index.js";

/** A real result that looks like a failure. */
export const LOOKS_FAILED = { ok: false, error: { code: "X", message: "the tool's own data" } };

export const RESULT_TOOLS: ToolDefinition[] = [
  { name: "shaped_result", description: "Returns data shaped like a failure.", inputSchema: { type: "object", properties: {} }, execute: () => LOOKS_FAILED },
  {
    name: "throws_plainly",
    description: "Throws a plain Error.",
    inputSchema: { type: "object", properties: {} },
    execute: () => {
      throw new Error("tool broke");
    },
  },
];
