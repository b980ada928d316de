/** `toolsearch config get|set|unset`: reads and edits the JSON5 config file, keeping it valid. */
import JSON5 from "json5";
import { configPath, loadConfig, readConfigFile, writeConfigFile } from "../config/config-file.js";
import { ConfigPathError, getPath, parsePath, setPath, unsetPath } from "../config/dot-path.js";
import { ConfigInvalidError, errorMessage, ToolSearchError } from "../errors.js";
import { clip } from "../text/prompt-text.js";
import { configInit } from "./config-init.js";
import { UsageError, type CommandIo } from "./usage.js";

export const CONFIG_USAGE = `Usage: toolsearch config <init [--force] | get [path] | set <path> <value> | unset <path>> [--config FILE]

  init                Write a commented starter config (the scripted provider, the MCP memory
                      server, a sample plugin in ./plugins); --force overwrites existing files.
  get [path]          Print the whole config, or the value at a dotted path.
  set <path> <value>  Set a value; <value> is JSON5 (true, 20, "text", {mode: "tools"}),
                      other text is a string (a word, a URL, a path); a value begun with {, [
                      or a quote must parse. Example: config set tools.toolSearch.mode directory
  unset <path>        Remove a value.
  --config FILE       The config file (default: ./toolsearch.config.json5).`;

/** A value begun as an object, an array or a quoted string: it must parse, or it is refused. */
const STARTS_AS_JSON5 = /^\s*[[{"']/;

/**
 * The value to set. Bare text is a string (`set tools.toolSearch.mode directory`, a URL, a
 * path: no quotes needed, and the schema refuses a string where another type is due). Text that
 * begins as an object, an array or a quoted string was meant as JSON5, so one that does not
 * parse is refused rather than stored as the string it happens to be.
 */
function parseValue(text: string): unknown {
  try {
    return JSON5.parse(text);
  } catch (error) {
    if (!STARTS_AS_JSON5.test(text)) return text;
    throw new ConfigInvalidError(
      `the value ${clip(text, 80)} is not valid JSON5 (${errorMessage(error).replace(/^JSON5: /, "")}); fix it, or quote it whole ('"…"') to set it as a string`,
    );
  }
}

export function configCommand(positionals: readonly string[], configFile: string | undefined, io: CommandIo, force = false): number {
  const [action, path, ...values] = positionals;
  const file = configPath(configFile);
  if (force && action !== "init") throw new UsageError("--force is for config init", CONFIG_USAGE);
  try {
    if (action === "init" && path === undefined) return configInit(file, force, io);
    if (action === "get" && values.length === 0) {
      const { config } = loadConfig(configFile);
      const value = path === undefined ? config : getPath(config, parsePath(path));
      if (value === undefined) {
        io.err(`toolsearch config: ${path} is not set in ${file}`);
        return 1;
      }
      io.out(typeof value === "string" ? value : JSON.stringify(value, null, 2));
      return 0;
    }
    if (action === "set" && path !== undefined && values.length === 1) {
      const keys = parsePath(path);
      const written = setPath(readConfigFile(file), keys, parseValue(values[0]!));
      writeConfigFile(file, written);
      io.err(`set ${path} in ${file}`);
      return 0;
    }
    if (action === "unset" && path !== undefined && values.length === 0) {
      const { result, removed } = unsetPath(loadConfig(configFile).config, parsePath(path));
      if (removed) writeConfigFile(file, result);
      io.err(removed ? `unset ${path} in ${file}` : `${path} was not set in ${file}`);
      return 0;
    }
  } catch (error) {
    if (error instanceof ConfigPathError) throw new UsageError(error.message, CONFIG_USAGE);
    if (error instanceof ToolSearchError) {
      // The value or file given is wrong: a usage error, like a bad argument.
      io.err(`toolsearch config: ${error.message}`);
      return 2;
    }
    throw error;
  }
  throw new UsageError(action === undefined ? "missing action" : `bad arguments for "config ${action}"`, CONFIG_USAGE);
}
