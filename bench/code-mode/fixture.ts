/**
 * The body every code-mode bench runs, search → describe → call, and the in-memory bridge it
 * runs against: what is measured is the sandbox, not a catalog.
 * Measures the sandbox against its own bridge interface on purpose: imports src/sandbox/types.ts directly.
 */
import type { BridgeHandler } from "../../src/sandbox/types.js";

export const BODY = `
const hits = await openclaw.tools.search("weather");
const tool = await openclaw.tools.describe(hits[0].id);
return await openclaw.tools.call(tool.id, { city: "Paris" });`;

/** What BODY returns against `bridge`. */
export const BODY_RESULT = { tempC: 21, args: { city: "Paris" } };

const TOOLS = [
  { id: "core:weather", description: "Current weather for a city", inputSchema: { type: "object" } },
  { id: "core:news", description: "Headlines", inputSchema: { type: "object" } },
];

export const bridge: BridgeHandler = {
  async search(query) {
    const q = String(query);
    return TOOLS.filter((t) => t.description.toLowerCase().includes(q)).map((t) => ({ id: t.id, description: t.description }));
  },
  async describe(id) {
    return TOOLS.find((t) => t.id === id);
  },
  async call(_id, args) {
    return { tempC: 21, args };
  },
};
