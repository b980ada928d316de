/** Small pieces every page uses: a failure (asking for the owner token on a 401), a state badge, a pager. */
import { html } from "htm/preact";
import { useState } from "preact/hooks";
import { ApiError, saveToken, savedToken } from "./api.js";

export function Failure({ error }: { error: ApiError }) {
  if (error.status === 401) return html`<${TokenForm} message=${error.message} />`;
  return html`<p class="failure" role="alert"><strong>${error.code}</strong> ${error.message}</p>`;
}

/** The owner token, asked for once per tab: this server has gateway.auth. */
function TokenForm({ message }: { message: string }) {
  const [token, setToken] = useState(savedToken() ?? "");
  const submit = (event: Event) => {
    event.preventDefault();
    saveToken(token.trim());
    location.reload();
  };
  return html`<form class="token" onSubmit=${submit}>
    <p>${message}</p>
    <label
      >Owner token
      <input type="password" name="token" autocomplete="off" value=${token} onInput=${(e: Event) => setToken((e.target as HTMLInputElement).value)}
    /></label>
    <button type="submit">Use token</button>
  </form>`;
}

export function Badge({ ok, text }: { ok: boolean; text: string }) {
  return html`<span class=${ok ? "badge ok" : "badge down"}>${text}</span>`;
}

export function Pager({ offset, limit, total, go }: { offset: number; limit: number; total: number; go: (offset: number) => void }) {
  if (total <= limit) return null;
  return html`<div class="pager">
    <button disabled=${offset === 0} onClick=${() => go(Math.max(0, offset - limit))}>Previous</button>
    <span>${offset + 1}–${Math.min(total, offset + limit)} of ${total}</span>
    <button disabled=${offset + limit >= total} onClick=${() => go(offset + limit)}>Next</button>
  </div>`;
}

export function Loading() {
  return html`<p class="loading">Loading…</p>`;
}
