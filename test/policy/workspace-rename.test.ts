/**
 * One meaning per name: the policy layer keyed by the run's workspace is `workspace` /
 * `policy.workspaces`; `sandbox` is code mode's sandbox only. The old names fail with the new
 * one where they come in: the policy option, the config file's policy section, the run context.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ConfigInvalidError, type ToolSearchEngine } from "../../src/index.js";
import { validateConfig } from "../../src/config/config-file.js";
import { parsePolicy } from "../../src/policy/policy-schema.js";
import { fixtureEngine } from "../engine/helpers.js";

let engine: ToolSearchEngine | undefined;
afterEach(async () => {
  await engine?.close();
  engine = undefined;
});

describe("policy.sandboxes → policy.workspaces", () => {
  const old = { sandboxes: { ci: { allow: ["core:*"] } } };

  it("is refused by name in the policy option, the config file and createToolSearch", async () => {
    expect(() => parsePolicy(old)).toThrow(ConfigInvalidError);
    expect(() => parsePolicy(old)).toThrow("policy.sandboxes was renamed policy.workspaces");
    // Beside the new key too: the old one would otherwise be one more unknown option.
    expect(() => parsePolicy({ ...old, workspaces: {} })).toThrow("policy.sandboxes was renamed policy.workspaces");
    expect(() => validateConfig({ policy: old })).toThrow("policy.sandboxes was renamed policy.workspaces");
    await expect(fixtureEngine({ policy: old as never })).rejects.toMatchObject({
      code: "CONFIG_INVALID",
      message: expect.stringContaining("policy.sandboxes was renamed policy.workspaces"),
    });
  });

  it("the workspace layer narrows the runs that name it", async () => {
    engine = await fixtureEngine({ policy: { workspaces: { ci: { allow: ["core:*"] } } } });
    const ci = await engine.prepareRun({ sessionId: "ci", workspace: "ci" });
    const other = await engine.prepareRun({ sessionId: "other", workspace: "dev" });
    const ids = async (run: typeof ci) => (await run.search("create issue", { limit: 20 })).map((h) => h.id);
    const admitted = await ids(ci);
    expect(admitted.length).toBeGreaterThan(0);
    expect(admitted.every((id) => id.startsWith("core:"))).toBe(true);
    expect(await ids(other)).toContain("plugin:github:create_issue");
  });
});

describe("RunContext.sandbox → RunContext.workspace", () => {
  it("is refused by name, not dropped with its layer's rules", async () => {
    engine = await fixtureEngine({ policy: { workspaces: { ci: { allow: ["core:*"] } } } });
    const refused = engine.prepareRun({ sessionId: "s", sandbox: "ci" } as never);
    await expect(refused).rejects.toBeInstanceOf(ConfigInvalidError);
    await expect(engine.prepareRun({ sessionId: "s", sandbox: "ci" } as never)).rejects.toThrow("RunContext.sandbox was renamed RunContext.workspace");
  });
});
