/**
 * Builds an object from only its defined properties. Under `exactOptionalPropertyTypes` (on in
 * this project's tsconfig) an optional key holding `undefined` is not the same as an absent key:
 * `{ limit: undefined }` does not type as `{ limit?: number }`, and `"limit" in options` or
 * `JSON.stringify` tell the two apart at run time too. So a value that may be `undefined` must be
 * left out, not set; `definedProps({ limit, signal })` says that once for every key instead of a
 * `...(limit !== undefined ? { limit } : {})` spread per key.
 *
 * Written here rather than taken from a library: remeda's `pickBy(props, isDefined)` types the
 * same way, but it would be a new runtime dependency loaded by `import("toolsearch")` (which loads
 * ajv alone, test/architecture/light-import.test.ts); lodash's and es-toolkit's `omitBy` type
 * their result as `Partial<T>`, which keeps `undefined` in the values and makes every key optional.
 */

/** `T` with each key whose value may be `undefined` made optional, without `undefined`; other keys as in `T`. */
export type DefinedProps<T extends object> = Flatten<
  { [K in keyof T as undefined extends T[K] ? never : K]: T[K] } & { [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined> }
>;

type Flatten<T> = { [K in keyof T]: T[K] };

/** `props` without its `undefined`-valued keys (`null`, `0`, `""` and `false` stay), in the same key order. */
export function definedProps<T extends object>(props: T): DefinedProps<T> {
  const defined: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(props)) if (value !== undefined) defined[key] = value;
  return defined as DefinedProps<T>;
}
