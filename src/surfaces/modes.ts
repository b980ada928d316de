/** Every mode's surface, by mode name: the one table the engine builds runs from. */
import type { ToolSearchMode } from "../settings/tool-search-config.js";
import { codeMode } from "./code-surface.js";
import { directMode } from "./direct-surface.js";
import { directoryMode } from "./directory-surface.js";
import { toolsMode } from "./tools-surface.js";
import type { SurfaceMode } from "./surface.js";

export const SURFACES: Readonly<Record<ToolSearchMode, SurfaceMode>> = {
  direct: directMode,
  code: codeMode,
  tools: toolsMode,
  directory: directoryMode,
};
