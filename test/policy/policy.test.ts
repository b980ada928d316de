import { describe, expect, it } from "vitest";
import { compileGlob } from "../../src/policy/glob.js";
import { Policy } from "../../src/policy/policy.js";
import { parsePolicy } from "../../src/policy/policy-schema.js";
import type { PolicyConfig, PolicySubject } from "../../src/policy/types.js";

const TOOLS = [
  { id: "core:exec", name: "exec" },
  { id: "core:read_file", name: "read_file" },
  { id: "plugin:shell:exec", name: "exec" },
  { id: "mcp:github:create_issue", name: "create_issue" },
  { id: "mcp:github:delete_repo", name: "delete_repo" },
  { id: "mcp:slack:post_message", name: "post_message" },
  { id: "core:admin_reset", name: "admin_reset", ownerOnly: true },
];

function admitted(config: PolicyConfig, subject: PolicySubject = {}): string[] {
  const admit = new Policy(config).admitter(subject);
  return TOOLS.filter(admit).map((t) => t.id);
}

describe("glob", () => {
  it("matches ids with * across colons, and bare names in any source", () => {
    expect(compileGlob("mcp:github:*")("mcp:github:create_issue", "create_issue")).toBe(true);
    expect(compileGlob("mcp:github:*")("mcp:slack:post", "post")).toBe(false);
    expect(compileGlob("core:*")("core:exec", "exec")).toBe(true);
    expect(compileGlob("exec")("plugin:shell:exec", "exec")).toBe(true);
    expect(compileGlob("exec")("core:execute", "execute")).toBe(false);
    expect(compileGlob("read_?ile")("core:read_file", "read_file")).toBe(true);
    expect(compileGlob("a.b")("core:axb", "axb")).toBe(false);
  });
});

describe("policy matrix", () => {
  it("admits everything but owner-only tools with no policy", () => {
    expect(admitted({})).toEqual(TOOLS.filter((t) => !t.ownerOnly).map((t) => t.id));
    expect(admitted({}, { owner: true })).toEqual(TOOLS.map((t) => t.id));
  });

  it("global allow admits only what it matches", () => {
    expect(admitted({ allow: ["mcp:github:*"] })).toEqual(["mcp:github:create_issue", "mcp:github:delete_repo"]);
  });

  it("deny wins over allow, at the same layer and across layers", () => {
    expect(admitted({ allow: ["mcp:*"], deny: ["mcp:github:delete_*"] })).toEqual(["mcp:github:create_issue", "mcp:slack:post_message"]);
    expect(admitted({ allow: ["mcp:*"], agents: { bot: { allow: ["mcp:*"], deny: ["mcp:slack:*"] } } }, { agentId: "bot" })).toEqual([
      "mcp:github:create_issue",
      "mcp:github:delete_repo",
    ]);
    expect(admitted({ deny: ["exec"], sessions: { s1: { allow: ["exec"] } } }, { sessionId: "s1" })).toEqual([]);
  });

  const layers: Array<[keyof PolicyConfig, keyof PolicySubject]> = [
    ["agents", "agentId"],
    ["profiles", "profile"],
    ["workspaces", "workspace"],
    ["sessions", "sessionId"],
    ["channels", "channel"],
  ];
  for (const [layer, key] of layers) {
    it(`the ${layer} layer narrows only its own subject`, () => {
      const config: PolicyConfig = { [layer]: { x: { allow: ["core:*"], deny: ["core:exec"] } } };
      expect(admitted(config, { [key]: "x" })).toEqual(["core:read_file"]);
      expect(admitted(config, { [key]: "other" })).toHaveLength(6);
    });
  }

  it("layers intersect: every allow list must admit the tool", () => {
    const config: PolicyConfig = {
      allow: ["core:*", "mcp:*"],
      profiles: { safe: { allow: ["mcp:*", "read_file"] } },
      channels: { slack: { allow: ["mcp:slack:*", "core:*"] } },
    };
    expect(admitted(config, { profile: "safe", channel: "slack" })).toEqual(["core:read_file", "mcp:slack:post_message"]);
  });

  it("owner-only tools need owner: true, by definition flag or by ownerOnly globs", () => {
    expect(admitted({ ownerOnly: ["mcp:github:delete_*"] })).not.toContain("mcp:github:delete_repo");
    expect(admitted({ ownerOnly: ["mcp:github:delete_*"] }, { owner: true })).toContain("mcp:github:delete_repo");
    expect(admitted({ ownerOnly: ["mcp:github:delete_*"] })).not.toContain("core:admin_reset");
    expect(admitted({ deny: ["core:admin_reset"] }, { owner: true })).not.toContain("core:admin_reset");
  });

  it("subject keys differ only where a layer names the subject", () => {
    const policy = new Policy({ agents: { bot: { allow: ["core:*"] } } });
    expect(policy.subjectKey({ agentId: "bot", sessionId: "a" })).toBe(policy.subjectKey({ agentId: "bot", sessionId: "b" }));
    expect(policy.subjectKey({ agentId: "bot" })).not.toBe(policy.subjectKey({ agentId: "other" }));
    expect(policy.subjectKey({ owner: true })).not.toBe(policy.subjectKey({ owner: false }));
  });
});

describe("policy option check", () => {
  it("rejects a misspelt layer and a non-list with the path", () => {
    expect(() => parsePolicy({ agent: {} })).toThrow(/policy: unknown option "agent"/);
    expect(() => parsePolicy({ allow: "core:*" })).toThrow(/policy\.allow: must be array/);
    expect(() => parsePolicy({ agents: { bot: { deny: [1] } } })).toThrow(/policy\.agents\.bot\.deny\.0/);
  });
});
