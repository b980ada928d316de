/**
 * JSON Schemas that carry, for the compiler only, the TypeScript type of the values they admit,
 * so that an option group is written once: its schema (each property with its doc comment, range
 * and `default`), from which both of its types are derived:
 *
 *   const poolSchema = object({ /** Children kept started (default 2). *\/ prefork: withDefault(int(0, 64), 2) });
 *   type PoolOptions = TypeOf<typeof poolSchema>;   // what users write: { prefork?: number }
 *   type FilledPool = Filled<typeof poolSchema>;    // after ajv's defaults: { prefork: number }
 *
 * The derived types are homomorphic over the schema's `properties`, so an editor shows each
 * property's doc comment where the option is used. Values that have no JSON Schema form (functions,
 * catalog sources, stores) are `declared<T>()`: their schema checks what it can (`function`,
 * `methods`), and the type says the rest.
 *
 * Hand-written, not TypeBox (which does the same and more): its import costs about 105 ms
 * (`node -e "import('@sinclair/typebox/type')"`), nearly half of the package's whole import budget,
 * where this is types and a few object literals.
 */

declare const declaredType: unique symbol;

/** A schema for values of a type JSON Schema cannot state (declared()): the type, for the compiler only. */
export interface Declared<T> {
  readonly [declaredType]: T;
}

/**
 * The type of the values a schema admits, read from its JSON Schema keywords (object, with
 * properties or with additionalProperties, array, const, enum, anyOf, integer, number, string,
 * boolean, null) or from declared(); `unknown` for any other.
 * Derived at the use site from the schema's own type, so doc comments on `properties` carry over
 * into the option types, in this package's declarations too.
 */
export type TypeOf<S> =
  S extends Declared<infer T>
    ? T
    : S extends { type: "object"; properties: infer P }
      ? ObjectOf<P, RequiredKeys<S> & keyof P>
      : S extends { type: "object"; additionalProperties: infer V extends object }
        ? Record<string, TypeOf<V>>
        : S extends { type: "array"; items: infer I }
          ? readonly TypeOf<I>[]
          : S extends { const: infer C }
            ? C
            : S extends { enum: readonly (infer V)[] }
              ? V
              : S extends { anyOf: readonly (infer A)[] }
                ? TypeOf<A>
                : S extends { type: "integer" | "number" }
                  ? number
                  : S extends { type: "string" }
                    ? string
                    : S extends { type: "boolean" }
                      ? boolean
                      : S extends { type: "null" }
                        ? null
                        : unknown;

type RequiredKeys<S> = S extends { required?: readonly (infer K)[] } ? K : never;

/** The type of an object schema's values once ajv (useDefaults) has filled in every `default`. */
export type Filled<S> = WithSchemaDefaults<TypeOf<S>, S>;

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

/** An integer from `minimum` to `maximum`; messages quote the range. */
export function int(minimum: number, maximum: number): { type: "integer"; minimum: number; maximum: number } {
  return { type: "integer", minimum, maximum };
}

/** A schema with its default: what ajv (useDefaults) fills in when the option is absent. */
export function withDefault<const S extends object>(schema: S, value: TypeOf<S>): S & { default: TypeOf<S> } {
  return { ...schema, default: value };
}

export function boolean(): { type: "boolean" } {
  return { type: "boolean" };
}

/** A string; `bounds` are any of the JSON Schema string keywords (minLength, maxLength, pattern) and a `description` for messages. */
export function string<const B extends object = object>(bounds?: B): { type: "string" } & B {
  return { type: "string", ...bounds } as { type: "string" } & B;
}

/** One of `values`. */
export function oneOf<const V extends readonly (string | number | boolean)[]>(values: V): { enum: V } {
  return { enum: values };
}

/** An array of what `items` admits; `bounds` are array keywords (maxItems, ...). */
export function arrayOf<const I extends object, const B extends object = object>(items: I, bounds?: B): { type: "array"; items: I } & B {
  return { type: "array", items, ...bounds } as { type: "array"; items: I } & B;
}

/** The object type of `properties`: `Required` keys present, every other key optional. Homomorphic, so doc comments carry over. */
export type ObjectOf<P, Required extends keyof P = never> = Flat<
  { -readonly [K in keyof P]?: TypeOf<P[K]> } & { -readonly [K in keyof Pick<P, Required>]-?: TypeOf<P[K]> }
>;

interface ObjectExtra<R> {
  required?: R;
  description?: string;
  additionalProperties?: boolean | object;
  default?: object;
}

/**
 * An object of `properties` (each a schema). Unknown keys are refused (with a did-you-mean)
 * unless `extra.additionalProperties` says otherwise; `extra` also takes `required`, a
 * `description` for messages and a `default`.
 */
export function object<const P extends Record<string, object>, const R extends readonly (keyof P & string)[] = []>(
  properties: P,
  extra: ObjectExtra<R> = {},
): { type: "object"; additionalProperties: boolean | object; properties: P; required?: R } {
  return { type: "object", additionalProperties: false, properties, ...extra };
}

/**
 * A schema for a value whose type JSON Schema cannot state (a function, a source, a store):
 * `declared<CatalogSource>()({ type: "object", methods: ["tools"] })` checks what the schema can
 * and types the value as `T`.
 */
export function declared<T>(): <const S extends object>(schema: S) => S & Declared<T> {
  return (schema) => schema as typeof schema & Declared<T>;
}

/** One object type instead of an intersection, for readable hovers and errors. */
type Flat<T> = { [K in keyof T]: T[K] } & {};

/**
 * An object of any keys, each value what `values` admits (`additionalProperties` as a schema):
 * `recordOf(string())` for `Record<string, string>`.
 */
export function recordOf<const V extends object, const B extends object = object>(values: V, bounds?: B): { type: "object"; additionalProperties: V } & B {
  return { type: "object", additionalProperties: values, ...bounds } as { type: "object"; additionalProperties: V } & B;
}

/**
 * A schema typed by the name `T`, for a group that another module defines (and checks, when `S`
 * is `{}`) embedded in this module's schema: `pool: {} as Named<PoolOptions>`. The emitted
 * declarations then refer to `T` by name, and so to its doc comments, where the inferred type of
 * a derived group would be printed as a copy of its structure without them.
 */
export type Named<T, S extends object = object> = S & Declared<T>;

/**
 * An object schema without its properties' `default`s (nested objects' too), the same otherwise:
 * for where ajv could not fill them in (under anyOf, which ajv's strict mode refuses them in) or
 * where they are another module's to fill.
 */
export function withoutDefaults<const S extends { properties: Record<string, object> }>(schema: S): WithoutDefaults<S> {
  const properties = Object.fromEntries(
    Object.entries(schema.properties).map(([key, property]) => {
      const kept = Object.fromEntries(Object.entries(property).filter(([keyword]) => keyword !== "default"));
      return [key, "properties" in property ? withoutDefaults(kept as { properties: Record<string, object> }) : kept];
    }),
  );
  return { ...schema, properties } as WithoutDefaults<S>;
}

type WithoutDefaults<S> = S extends { properties: infer P }
  ? Omit<S, "properties"> & { properties: { [K in keyof P]: WithoutDefaults<Omit<P[K], "default">> } }
  : S;

/**
 * What ajv (useDefaults) makes of `{}` with this object schema: each property's `default`, and
 * within an object property's default, that object's own defaults; read from the schema, so that
 * a module's default values (DEFAULT_SETTINGS, say) are not written a second time.
 */
export function defaultsOf<const S extends { properties: Record<string, object> }>(schema: S): Filled<S> {
  const defaults: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(schema.properties)) {
    if (!("default" in property)) continue;
    const value = structuredClone(property.default);
    defaults[key] = "properties" in property && isPlainObject(value) ? { ...defaultsOf(property as { properties: Record<string, object> }), ...value } : value;
  }
  return defaults as Filled<S>;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
