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
import type { WithSchemaDefaults } from "./schema-defaults.js";

declare const declaredType: unique symbol;

/** A schema for values of a type JSON Schema cannot state (declared()): the type, for the compiler only. */
export interface Declared<T> {
  readonly [declaredType]: T;
}

/**
 * The type of the values a schema admits, read from its JSON Schema keywords (object, array,
 * const, enum, anyOf, integer, number, string, boolean, null) or from declared(); `unknown` for any other.
 * Derived at the use site from the schema's own type, so doc comments on `properties` carry over
 * into the option types, in this package's declarations too.
 */
export type TypeOf<S> =
  S extends Declared<infer T>
    ? T
    : S extends { type: "object"; properties: infer P }
      ? ObjectOf<P, RequiredKeys<S> & keyof P>
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
