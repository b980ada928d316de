/**
 * JSON-RPC errors in the protocol's shape for what the SDK answers badly or not at all, each
 * with toolsearch's own code in `error.data.code`, as the face's other refusals carry theirs:
 *
 * - a stdio line that is not JSON: the SDK's stdio transport only reports it to `onerror`, so
 *   the client would wait for an answer forever; answered -32700 (PARSE_ERROR), id null;
 * - a stdio line that is JSON but no JSON-RPC message: -32600 (BAD_REQUEST), id null (JSON-RPC
 *   answers id null when the request's id cannot be read);
 * - a request whose params fail its method's schema (`tools/call` without `name`): the SDK
 *   parses them before its own -32602 check runs and answers -32603 with the schema library's
 *   issues as a multi-line dump (typescript-sdk#2284); answered here first, -32602
 *   (INVALID_ARGS) naming the field, before the request reaches the SDK;
 * - over HTTP, a body that is not JSON: -32700 (PARSE_ERROR), as on stdio; the face's other
 *   refusals at the door keep -32000 (REFUSED).
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolRequestSchema,
  ErrorCode as JsonRpcCode,
  isJSONRPCRequest,
  ListToolsRequestSchema,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import type { ErrorCode } from "../errors.js";
import { clip } from "../text/prompt-text.js";
import { REFUSED } from "./answer-flow.js";

/** The requests this face answers, by method: their params are checked before the SDK sees them. */
const PARAMS_SCHEMAS = { "tools/call": CallToolRequestSchema, "tools/list": ListToolsRequestSchema } as const;
const MAX_ISSUES = 3;
const MAX_MESSAGE_CHARS = 500;

interface Issue {
  path: readonly PropertyKey[];
  message: string;
}

function errorAnswer(id: RequestId | null, code: JsonRpcCode, message: string, ours: ErrorCode): JSONRPCErrorResponse {
  // JSON-RPC's id null (an id that could not be read) is not in the SDK's message type.
  return { jsonrpc: "2.0", id: id as RequestId, error: { code, message, data: { code: ours } } };
}

/**
 * The answer to a stdio line the SDK's transport could not read (`transport.onerror`'s error),
 * or undefined for any other error (a stdin failure): nothing to answer then.
 */
export function unreadableLineAnswer(error: Error): JSONRPCErrorResponse | undefined {
  if (error instanceof SyntaxError) {
    return errorAnswer(null, JsonRpcCode.ParseError, "Parse error: the line is not JSON; send one JSON-RPC message per line.", "PARSE_ERROR");
  }
  if (error.name === "ZodError") {
    return errorAnswer(
      null,
      JsonRpcCode.InvalidRequest,
      'Invalid Request: the line is JSON but not a JSON-RPC 2.0 message (jsonrpc "2.0", method, id).',
      "BAD_REQUEST",
    );
  }
  return undefined;
}

/** The -32602 answer to a request whose params its method's schema refuses; undefined when they pass. */
function invalidParamsAnswer(message: JSONRPCMessage): JSONRPCErrorResponse | undefined {
  if (!isJSONRPCRequest(message) || !Object.hasOwn(PARAMS_SCHEMAS, message.method)) return undefined;
  const checked = PARAMS_SCHEMAS[message.method as keyof typeof PARAMS_SCHEMAS].safeParse(message);
  if (checked.success) return undefined;
  const issues = (checked.error.issues as readonly Issue[]).slice(0, MAX_ISSUES).map((issue) => `${issue.path.map(String).join(".")}: ${issue.message}`);
  return errorAnswer(
    message.id,
    JsonRpcCode.InvalidParams,
    clip(`Invalid params for ${message.method}: ${issues.join("; ")}`, MAX_MESSAGE_CHARS),
    "INVALID_ARGS",
  );
}

/** The JSON-RPC code of an HTTP refusal (an HttpError's code) on `mcp --http`. */
export function httpRefusalCode(code: ErrorCode): number {
  return code === "PARSE_ERROR" ? JsonRpcCode.ParseError : REFUSED;
}

/**
 * From now on a request whose params fail its method's schema is answered -32602 on `transport`
 * and never reaches the server. Call once the server is connected (it set `onmessage` then).
 */
export function refuseInvalidParams(transport: Transport): void {
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const refusal = invalidParamsAnswer(message);
    if (refusal === undefined) return deliver?.(message, extra);
    transport.send(refusal).catch(() => {
      // the client is gone: nothing to answer
    });
  };
}
