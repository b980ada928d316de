/**
 * Runs INSIDE the body's vm context (its source is compiled there by child/main.ts), so every
 * object it makes — `openclaw`, `console`, bridge results, bridge errors — belongs to the
 * context's realm. The host hands it exactly one function, `post`, which takes and returns only
 * primitives; `post` stays in this closure and is never reachable from the body. The host calls
 * back only through the returned `start`, `deliver` and `makeError`, with primitives or with the
 * body function compiled in this same context.
 *
 * Intrinsics are captured before the body runs, so a body that replaces JSON, Promise, Error or
 * Object.defineProperty only breaks itself.
 *
 * post(kind, a, s1, s2) kinds:
 *   1 bridge call   a = call id, s1 = op, s2 = JSON text of the argument list
 *   2 log           a = level (0 log, 1 warn, 2 error), s1 = message
 *   3 return        s1 = JSON text of the return value
 *   4 threw         s1 = message, s2 = stack
 *   5 not JSON      s1 = message (the return value could not be serialised)
 * It returns 0 when the host took the frame; anything else means the run is over.
 *
 * Serialised with Function.prototype.toString (child/source.ts): self-contained, no imports.
 */
export type PostFn = (kind: number, a: number, s1: string, s2: string) => number;

export interface RealmHooks {
  /** Calls the compiled body and reports its outcome through `post`. */
  start(fn: () => unknown): void;
  /** Settles bridge call `id` with JSON text (the value, or `{code, message}` when !ok). */
  deliver(id: number, ok: boolean, text: string): void;
  /** An Error of this realm carrying `code`. */
  makeError(code: string, message: string): Error;
  /** "Name [code]: message" for any thrown value, read inside the realm. */
  describeError(error: unknown): string;
}

export function setupRealm(post: PostFn): RealmHooks {
  "use strict";
  const g = globalThis as unknown as Record<string, unknown>;
  const ErrorCtor = Error;
  const PromiseCtor = Promise;
  const StringCtor = String;
  const apply = Reflect.apply;
  const defineProperty = Object.defineProperty;
  const freeze = Object.freeze;
  const create = Object.create;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const promiseThen = Promise.prototype.then;
  const isArray = Array.isArray;

  type Pending = { resolve: (v: unknown) => void; reject: (e: unknown) => void };
  const pending: Record<number, Pending> = create(null);
  let nextId = 1;

  function send(kind: number, a: number, s1: string, s2: string): number {
    // The host function never throws by design, but a stack overflow can surface in its frame;
    // the caught value (possibly a host-realm error) must not reach the body, so it is dropped.
    try {
      return post(kind, a, s1, s2);
    } catch {
      return -1;
    }
  }

  function makeError(code: string, message: string): Error {
    const error = new ErrorCtor(message);
    defineProperty(error, "code", { value: code, writable: true, enumerable: true, configurable: true });
    return error;
  }

  function text(value: unknown): string {
    try {
      if (typeof value === "string") return value;
      if (value instanceof ErrorCtor) {
        const stack = value.stack;
        return typeof stack === "string" ? stack : StringCtor(value);
      }
      const json = stringify(value);
      return json === undefined ? StringCtor(value) : json;
    } catch {
      try {
        return StringCtor(value);
      } catch {
        return "[unprintable]";
      }
    }
  }

  function describeError(error: unknown): string {
    try {
      if (error !== null && (typeof error === "object" || typeof error === "function")) {
        const e = error as { name?: unknown; message?: unknown; code?: unknown };
        const message = e.message;
        if (typeof message === "string") {
          const name = typeof e.name === "string" && e.name !== "" ? e.name : "Error";
          const code = typeof e.code === "string" ? " [" + e.code + "]" : "";
          return name + code + ": " + message;
        }
      }
      return "Uncaught " + StringCtor(error);
    } catch {
      return "Uncaught exception that could not be read";
    }
  }

  function stackOf(error: unknown): string {
    try {
      if (error !== null && typeof error === "object") {
        const stack = (error as { stack?: unknown }).stack;
        if (typeof stack === "string") return stack;
      }
    } catch {
      // A throwing `stack` getter leaves the stack empty.
    }
    return "";
  }

  function bridge(op: string, args: unknown[]): Promise<unknown> {
    return new PromiseCtor((resolve, reject) => {
      let json: string;
      try {
        json = stringify(args);
      } catch (e) {
        reject(makeError("INVALID_ARGS", "openclaw.tools." + op + " arguments must be JSON-serializable: " + describeError(e)));
        return;
      }
      const id = nextId++;
      pending[id] = { resolve, reject };
      // Non-zero: the run is over (limit hit or result sent); the child is about to be killed,
      // so the promise is left pending.
      if (send(1, id, op, json) !== 0) delete pending[id];
    });
  }

  function log(level: number) {
    return function (...args: unknown[]): undefined {
      let line = "";
      for (let i = 0; i < args.length; i++) line += (i === 0 ? "" : " ") + text(args[i]);
      send(2, level, line, "");
      return undefined;
    };
  }

  // Extra arguments travel too, so that the parent refuses them (INVALID_ARGS) instead of the
  // body's third argument being dropped without a word.
  const tools = freeze({
    search(query: unknown, options?: unknown, ...extra: unknown[]) {
      if (extra.length > 0) return bridge("search", [query, options, ...extra]);
      return options === undefined ? bridge("search", [query]) : bridge("search", [query, options]);
    },
    describe(id: unknown, ...extra: unknown[]) {
      return bridge("describe", [id, ...extra]);
    },
    call(id: unknown, args?: unknown, ...extra: unknown[]) {
      return bridge("call", [id, args === undefined ? {} : args, ...extra]);
    },
  });
  const consoleObject = freeze({ log: log(0), info: log(0), debug: log(0), warn: log(1), error: log(2) });
  defineProperty(g, "openclaw", { value: freeze({ tools }), writable: false, enumerable: false, configurable: false });
  defineProperty(g, "console", { value: consoleObject, writable: true, enumerable: false, configurable: true });

  return freeze({
    start(fn: () => unknown): void {
      // Per call, so the warm-up run (child/main.ts) leaves nothing behind for the real one.
      let finished = false;
      const finish = (value: unknown): void => {
        if (finished) return;
        finished = true;
        let json: string | undefined;
        try {
          json = stringify(value);
        } catch (e) {
          send(5, 0, "the return value is not JSON-serializable: " + describeError(e), "");
          return;
        }
        // undefined (and functions, symbols) have no JSON form: they come back as null.
        send(3, 0, json === undefined ? "null" : json, "");
      };
      const fail = (error: unknown): void => {
        if (finished) return;
        finished = true;
        send(4, 0, describeError(error), stackOf(error));
      };
      let result: unknown;
      try {
        result = fn();
      } catch (e) {
        fail(e);
        return;
      }
      // then(finish, fail) through the realm's own primordial: both outcomes are handled.
      // oxlint-disable-next-line typescript/no-floating-promises
      apply(promiseThen, result, [finish, fail]);
    },
    deliver(id: number, ok: boolean, json: string): void {
      const entry = pending[id];
      if (entry === undefined) return;
      delete pending[id];
      if (ok) {
        let value: unknown = null;
        try {
          value = parse(json);
        } catch {
          // The parent only sends JSON it produced; keep null if it ever does not parse.
        }
        entry.resolve(value);
        return;
      }
      let code = "TOOL_FAILED";
      let message = "the bridge call failed";
      try {
        const info = parse(json);
        if (info !== null && typeof info === "object" && !isArray(info)) {
          if (typeof info.code === "string") code = info.code;
          if (typeof info.message === "string") message = info.message;
        }
      } catch {
        // Keep the defaults.
      }
      entry.reject(makeError(code, message));
    },
    makeError,
    describeError,
  });
}
