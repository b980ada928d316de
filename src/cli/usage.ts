/** A command-line usage error: printed with the command's usage, exit code 2. */
export class UsageError extends Error {
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
