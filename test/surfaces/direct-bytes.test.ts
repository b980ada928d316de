/** upfront.directBytes: what direct mode would have declared, counted without building it, equal to what it does declare. */
import { afterEach, describe, expect, it } from "vitest";
import { coreTools, createToolSearch, pluginTools, type ToolDefinition, type ToolSearchEngine } from "../../src/index.js";

const tool = (name: string, description: string): ToolDefinition => ({
  name,
  description,
  inputSchema: { type: "object", properties: { city: { type: "string", description: "Städtename — ünïcode" } } },
  execute: () => "ok",
});

let engine: ToolSearchEngine | undefined;
afterEach(async () => {
  await engine?.close();
  engine = undefined;
});

describe("upfront.directBytes", () => {
  it("is the byte length of the tools direct mode declares for the same caller", async () => {
    engine = await createToolSearch({
      toolSearch: { mode: "tools" },
      sources: [
        coreTools([tool("get_weather", 'Weather "today" in a city.'), tool("lookup", "Look a thing up.")]),
        pluginTools("a", [tool("only_a", "A's own.")]),
        pluginTools("b", [tool("secret", "Owner only.")]),
      ],
      policy: { ownerOnly: ["plugin:b:secret"] },
    });
    for (const owner of [false, true]) {
      const tools = await engine.prepareRun({ sessionId: `t${owner}`, owner });
      const direct = await engine.prepareRun({ sessionId: `d${owner}`, owner, mode: "direct" });
      expect(tools.telemetry().upfront.directBytes).toBe(Buffer.byteLength(JSON.stringify(direct.tools)));
      expect(direct.telemetry().upfront.directBytes).toBe(direct.telemetry().upfront.toolsBytes);
    }
  });

  it("counts tools that share a name under that name: short by the toolset prefixes direct mode adds", async () => {
    engine = await createToolSearch({
      toolSearch: { mode: "tools" },
      sources: [coreTools([tool("lookup", "Look a thing up.")]), pluginTools("a", [tool("lookup", "Look up in A.")])],
    });
    const tools = await engine.prepareRun({ sessionId: "t" });
    const direct = await engine.prepareRun({ sessionId: "d", mode: "direct" });
    expect(direct.tools.map((t) => t.function.name)).toEqual(["core__lookup", "a__lookup"]);
    expect(Buffer.byteLength(JSON.stringify(direct.tools)) - tools.telemetry().upfront.directBytes).toBe("core__".length + "a__".length);
  });

  it("counts a run's client tools", async () => {
    engine = await createToolSearch({ toolSearch: { mode: "tools" }, sources: [coreTools([tool("get_weather", "Weather in a city.")])] });
    const clientTools = [tool("ask_user", "Ask the user a question.")];
    const tools = await engine.prepareRun({ sessionId: "t", clientTools });
    const direct = await engine.prepareRun({ sessionId: "d", clientTools, mode: "direct" });
    expect(tools.telemetry().upfront.directBytes).toBe(Buffer.byteLength(JSON.stringify(direct.tools)));
  });
});
