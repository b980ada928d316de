/**
 * Keys renamed so that one name has one meaning (`owner` is owner rights only; a tool's provider
 * is its `toolset`; the policy layer once called `sandbox`, a name code mode's sandbox keeps, is
 * the `workspace`). An old key fails with its new name instead of ajv's "unknown option", or,
 * where the schema is open (the run context), instead of being silently ignored, which for a
 * policy layer would drop its rules without a word.
 */
import { ConfigInvalidError } from "../errors.js";

/** The policy layer's old keys: in `policy` (the option and the config file's section) and in the run context. */
export const RENAMED_POLICY_KEYS: Readonly<Record<string, string>> = { sandboxes: "workspaces" };
export const RENAMED_RUN_CONTEXT_KEYS: Readonly<Record<string, string>> = { sandbox: "workspace" };

/**
 * Throws CONFIG_INVALID when `value` has an old key of `renames` (old → new):
 * `<path>.<old> was renamed <path>.<new>`, then `note` when given.
 */
export function refuseRenamedKeys(value: unknown, path: string, renames: Readonly<Record<string, string>>, note = ""): void {
  if (typeof value !== "object" || value === null) return;
  for (const [old, renamed] of Object.entries(renames)) {
    if (old in value) throw new ConfigInvalidError(`${path}.${old} was renamed ${path}.${renamed}${note}`);
  }
}
