/**
 * Calls to the admin API from the console: same origin, JSON, and the owner token when the
 * server wants one (kept in this tab's sessionStorage, never in a URL or a cookie). A 401 is
 * handed to the page, which asks for the token.
 */
const TOKEN_KEY = "toolsearch.console.token";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function savedToken(): string | undefined {
  return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
}

export function saveToken(token: string | undefined): void {
  if (token === undefined || token === "") sessionStorage.removeItem(TOKEN_KEY);
  else sessionStorage.setItem(TOKEN_KEY, token);
}

/** The admin API's answer to `path` (GET, or POST with `body`); a failure is an ApiError with the server's code and message. */
export async function api<T>(path: string, body?: unknown): Promise<T> {
  const token = savedToken();
  const headers: Record<string, string> = { accept: "application/json" };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`../admin/v1${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await response.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
  if (!response.ok) throw new ApiError(response.status, json.error?.code ?? "HTTP_" + response.status, json.error?.message ?? response.statusText);
  return json as T;
}
