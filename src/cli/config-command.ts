/** `toolsearch config get|set|unset`: reads and edits the JSON5 config file, keeping it valid. */
import JSON5 from "json5";
import { configPath, loadConfig, readConfigFile, writeConfigFile } from "../config/config-file.js";
import { getPath, parsePath, setPath, unsetPath } from "../config/dot-path.js";
import { ToolSearchError } from "../errors.js";
import { UsageError, type CommandIo } from "./usage.js";

export const CONFIG_USAGE = `Usage: toolsearch config <get [path] | set <path> <value> | unset <path>> [--config FILE]

  get [path]          Print the whole config, or the value at a dotted path.
  set <path> <value>  Set a value; <value> is JSON5 (true, 20, "text", {mode: "tools"}),
                      a bare word is a string. Example: config set tools.toolSearch.mode directory
  unset <path>        Remove a value.
  --config FILE       The config file (default: ./toolsearch.config.json5).`;

/** Bare words are strings: `set tools.toolSearch.mode directory` needs no quotes. */
export function parseValue(text: string): unknown {
  try {
    return JSON5.parse(text);
  } catch {
    return text;
  }
}

export function configCommand(positionals: readonly string[], configFile: string | undefined, io: CommandIo): number {
  const [action, path, ...values] = positionals;
  const file = configPath(configFile);
  try {
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
      writeConfigFile(file, setPath(readConfigFile(file), parsePath(path), parseValue(values[0]!)));
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
    if (error instanceof TypeError) throw new UsageError(error.message, CONFIG_USAGE);
    if (error instanceof ToolSearchError) {
      // The value or file given is wrong: a usage error, like a bad argument.
      io.err(`toolsearch config: ${error.message}`);
      return 2;
    }
    throw error;
  }
  throw new UsageError(action === undefined ? "missing action" : `bad arguments for "config ${action}"`, CONFIG_USAGE);
}
