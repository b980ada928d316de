/** direct: every effective tool's schema up front (the baseline). */
import type { CallOutcome } from "../dispatch/types.js";
import { ToolNotFoundError } from "../errors.js";
import type { CatalogEntry } from "../catalog/types.js";
import { assignFunctionNames, toProviderTool, type ProviderTool } from "./provider-tool.js";
import { failed, failedWith, succeeded, type SurfaceMode, type SurfaceResult } from "./surface.js";

/** The declared tools of a direct surface; the same for every run over one effective catalog. */
interface DirectDeclaration {
  byFunction: ReadonlyMap<string, CatalogEntry>;
  tools: ProviderTool[];
  upfrontIds: string[];
}

function declareDirect(entries: Iterable<CatalogEntry>): DirectDeclaration {
  const byFunction = assignFunctionNames(entries);
  return {
    byFunction,
    tools: [...byFunction].map(([functionName, entry]) => toProviderTool(functionName, entry)),
    upfrontIds: [...byFunction.values()].map((entry) => entry.id),
  };
}

export const directMode: SurfaceMode = {
  build({ dispatcher }) {
    const { catalog } = dispatcher;
    // Runs without client tools share one declaration per admitted catalog: 10k schemas are not rebuilt per run.
    const { byFunction, tools, upfrontIds } =
      catalog.clientIds.size > 0 ? declareDirect(catalog.entries()) : catalog.shared("direct", () => declareDirect(catalog.catalogEntries()));
    return {
      tools,
      instructions: "",
      upfrontIds,
      async handle(name, args, { signal, trace }) {
        const entry = byFunction.get(name);
        if (!entry) return failedWith(new ToolNotFoundError(name));
        return directCallResult(await dispatcher.call(entry.id, args, "direct", signal, trace));
      },
    };
  },
};

/** A direct call answers with the tool's own result (whatever its shape), or the error the model can act on. */
export function directCallResult(outcome: CallOutcome): SurfaceResult {
  return outcome.ok ? succeeded(outcome.result) : failed(outcome.error);
}
