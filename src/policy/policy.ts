/**
 * The policy filter: which tools a run may see at all. Layers global → agent → profile →
 * workspace → session → channel intersect: a layer with an `allow` list admits only what it
 * matches, a `deny` anywhere removes the tool (deny wins), and owner-only tools need
 * `owner: true`. Everything not admitted is invisible to search, describe and call.
 */
import { compileGlobList, type IdMatcher } from "./glob.js";
import type { PolicyConfig, PolicyRule, PolicySubject, PolicyTool } from "./types.js";

interface CompiledRule {
  allow: IdMatcher | undefined;
  deny: IdMatcher | undefined;
}

type LayerName = "agents" | "profiles" | "workspaces" | "sessions" | "channels";
const LAYERS: ReadonlyArray<{ layer: LayerName; key: keyof PolicySubject }> = [
  { layer: "agents", key: "agentId" },
  { layer: "profiles", key: "profile" },
  { layer: "workspaces", key: "workspace" },
  { layer: "sessions", key: "sessionId" },
  { layer: "channels", key: "channel" },
];

function compileRule(rule: PolicyRule | undefined): CompiledRule {
  return {
    allow: rule?.allow ? compileGlobList(rule.allow) : undefined,
    deny: rule?.deny && rule.deny.length > 0 ? compileGlobList(rule.deny) : undefined,
  };
}

export class Policy {
  private readonly global: CompiledRule;
  private readonly layers: ReadonlyMap<LayerName, ReadonlyMap<string, CompiledRule>>;
  private readonly ownerOnly: IdMatcher;

  constructor(private readonly config: PolicyConfig = {}) {
    this.global = compileRule(config);
    this.ownerOnly = compileGlobList(config.ownerOnly ?? []);
    const layers = new Map<LayerName, Map<string, CompiledRule>>();
    for (const { layer } of LAYERS) {
      const entries = Object.entries(config[layer] ?? {});
      layers.set(layer, new Map(entries.map(([key, rule]) => [key, compileRule(rule)])));
    }
    this.layers = layers;
  }

  /** The rules that apply to this subject, global first. */
  private rulesFor(subject: PolicySubject): CompiledRule[] {
    const rules = [this.global];
    for (const { layer, key } of LAYERS) {
      const value = subject[key];
      if (typeof value !== "string") continue;
      const rule = this.layers.get(layer)?.get(value);
      if (rule) rules.push(rule);
    }
    return rules;
  }

  /**
   * A cache key for the subject: only the fields some layer actually names, so runs whose
   * policy is the same share one effective catalog.
   */
  subjectKey(subject: PolicySubject): string {
    const parts = [subject.owner === true ? "owner" : "guest"];
    for (const { layer, key } of LAYERS) {
      const value = subject[key];
      if (typeof value === "string" && this.layers.get(layer)?.has(value)) parts.push(`${layer}=${value}`);
    }
    return parts.join("|");
  }

  /** Whether only an owner's runs may see this tool: its definition says so, or an `ownerOnly` glob names it. */
  isOwnerOnly(tool: PolicyTool): boolean {
    return tool.ownerOnly === true || this.ownerOnly(tool.id, tool.name);
  }

  /** A predicate for one subject; compile once per run, apply to every tool. */
  admitter(subject: PolicySubject): (tool: PolicyTool) => boolean {
    const rules = this.rulesFor(subject);
    const owner = subject.owner === true;
    return (tool) => {
      if (!owner && this.isOwnerOnly(tool)) return false;
      for (const rule of rules) {
        if (rule.deny?.(tool.id, tool.name)) return false;
        if (rule.allow && !rule.allow(tool.id, tool.name)) return false;
      }
      return true;
    };
  }

  toJSON(): PolicyConfig {
    return this.config;
  }
}
