/**
 * The type of an option set after its schema's defaults are filled in, derived from the schema,
 * so that a default is written once (its `default` keyword) and no hand-written "checked" type
 * has to repeat it.
 */

/** A schema with its default: `default` is what ajv (useDefaults) fills in when the option is absent. */
export function withDefault<S extends object, D>(schema: S, value: D): S & { default: D } {
  return { ...schema, default: value };
}

/** The keys of `T` whose schema in `properties` has a `default`. */
type DefaultedKeys<T, P> = { [K in keyof T]-?: K extends keyof P ? (P[K] extends { default: unknown } ? K : never) : never }[keyof T];

/**
 * `T` (the option type users write) as checked by the object schema `S`: each key whose property
 * schema has a `default` is present, and, when that schema is itself an object schema, so are its
 * own defaulted keys; every other key is as `T` has it.
 */
export type WithSchemaDefaults<T, S> = S extends { properties: infer P } ? FillIn<T, P, DefaultedKeys<T, P>> : T;

/** Mapped over `keyof T` (with `as`), not built with Omit, so that each key keeps its doc comment. */
type FillIn<T, P, D extends keyof T> = Flat<
  { [K in keyof T as K extends D ? never : K]: T[K] } & { [K in keyof T as K extends D ? K : never]-?: WithSchemaDefaults<NonNullable<T[K]>, P[K & keyof P]> }
>;

/** One object type instead of an intersection, for readable hovers and errors. */
type Flat<T> = { [K in keyof T]: T[K] } & {};
