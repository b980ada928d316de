/** Allow/deny globs per layer; see docs/architecture.md (fail-closed policy). */
export interface PolicyRule {
  allow?: string[];
  deny?: string[];
}

export interface PolicyConfig extends PolicyRule {
  /** Globs of tools that only an owner (`owner: true` in the run context) may see or call. */
  ownerOnly?: string[];
  agents?: Record<string, PolicyRule>;
  profiles?: Record<string, PolicyRule>;
  /** Keyed by the run's `workspace`. */
  workspaces?: Record<string, PolicyRule>;
  sessions?: Record<string, PolicyRule>;
  channels?: Record<string, PolicyRule>;
}

/** The parts of a run context that policy looks at. */
export interface PolicySubject {
  agentId?: string;
  profile?: string;
  workspace?: string;
  sessionId?: string;
  channel?: string;
  owner?: boolean;
}

/** The fields of a tool that policy looks at. */
export interface PolicyTool {
  id: string;
  name: string;
  ownerOnly?: boolean;
}
