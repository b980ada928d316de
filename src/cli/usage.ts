import { ConfigInvalidError } from "../errors.js";

/** A command-line usage error: printed with the command's usage, exit code 2. A bad option value, so CONFIG_INVALID like a bad config value. */
export class UsageError extends ConfigInvalidError {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message);
  }
}

export interface CommandIo {
  out(line: string): void;
  err(line: string): void;
}
