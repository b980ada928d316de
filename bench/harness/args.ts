/** The value given after a flag (`--out DIR`): argv[at], which must exist and not be another flag. */
export function flagValue(argv: readonly string[], at: number, flag: string): string {
  const value = argv[at];
  if (value === undefined || value.startsWith("--")) throw new Error(`${flag} needs a value`);
  return value;
}
