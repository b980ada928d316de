import { createToolSearch, coreTools, pluginTools, type CreateToolSearchOptions } from "../../src/index.js";
import { githubTools, weatherTools, type Recorder } from "../fixtures/tools.js";

/** An engine over the fixture catalog (core weather tools + plugin "github"), in tools mode unless told. */
export async function fixtureEngine(options: CreateToolSearchOptions = {}, recorder: Recorder = { ran: [] }) {
  return createToolSearch({
    toolSearch: { mode: "tools" },
    sources: [coreTools(weatherTools(recorder)), pluginTools("github", githubTools(recorder))],
    ...options,
  });
}

export function parse(content: string): Record<string, unknown> {
  return JSON.parse(content) as Record<string, unknown>;
}
