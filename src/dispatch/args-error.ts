import type { ErrorObject } from "ajv";

/** `args.city: must be string; args: missing required field "days"`: names the bad field, up to three. */
export function describeArgsErrors(errors: readonly ErrorObject[] | null | undefined): string {
  if (!errors || errors.length === 0) return "arguments do not match the input schema";
  return errors
    .slice(0, 3)
    .map((error) => {
      const field = ["args", ...error.instancePath.split("/").slice(1)].join(".");
      const params = error.params as Record<string, unknown>;
      if (error.keyword === "required") return `${field}: missing required field "${String(params.missingProperty)}"`;
      if (error.keyword === "additionalProperties") return `${field}: unknown field "${String(params.additionalProperty)}"`;
      if (error.keyword === "enum") return `${field}: must be one of ${JSON.stringify(params.allowedValues)}`;
      return `${field}: ${error.message ?? "is invalid"}`;
    })
    .join("; ");
}
