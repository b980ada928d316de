/**
 * The search playground: a request, an identity (agent, profile, channel, owner, or a token's
 * tenant) and a mode; the hits that identity's runs would get, what its model is shown up front
 * against direct mode, and per hit why it is where it is.
 */
import { html } from "htm/preact";
import { useState } from "preact/hooks";
import { api, ApiError } from "../api.js";
import { bytes, count, figure, saved } from "../format.js";
import { usePoll } from "../poll.js";
import type { AdminIndex, SearchAnswer } from "../../../src/admin/admin-wire-types.js";
import { Failure } from "../ui.js";
import { ExplainView } from "./explain-view.js";

const MODES = ["", "code", "tools", "directory", "direct"];

interface Form {
  request: string;
  agentId: string;
  profile: string;
  channel: string;
  owner: boolean;
  token: string;
  mode: string;
  limit: number;
}

export function SearchPage() {
  const index = usePoll(() => api<AdminIndex>(""), undefined);
  const [form, setForm] = useState<Form>({ request: "", agentId: "", profile: "", channel: "", owner: false, token: "", mode: "", limit: 8 });
  const [answer, setAnswer] = useState<SearchAnswer | undefined>(undefined);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const set = (key: keyof Form) => (event: Event) => {
    const target = event.target as HTMLInputElement;
    setForm({ ...form, [key]: target.type === "checkbox" ? target.checked : target.type === "number" ? Number(target.value) : target.value });
  };
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    const identity = {
      ...(form.agentId ? { agentId: form.agentId } : {}),
      ...(form.profile ? { profile: form.profile } : {}),
      ...(form.channel ? { channel: form.channel } : {}),
      ...(form.owner ? { owner: true } : {}),
      ...(form.token ? { token: form.token } : {}),
    };
    try {
      setAnswer(
        await api<SearchAnswer>("/search", { request: form.request, limit: form.limit, detail: true, identity, ...(form.mode ? { mode: form.mode } : {}) }),
      );
      setError(undefined);
    } catch (failure) {
      setError(failure instanceof ApiError ? failure : new ApiError(0, "NETWORK", String(failure)));
    } finally {
      setBusy(false);
    }
  };
  const tokens = index.data?.tokens ?? [];
  return html`<section>
    <h2>Search playground</h2>
    <form class="search" onSubmit=${submit}>
      <input
        class="request"
        name="request"
        placeholder="What would a user ask? e.g. list everything in the knowledge graph"
        value=${form.request}
        onInput=${set("request")}
        required
        maxlength="1000"
      />
      <div class="identity">
        <label>agent <input name="agentId" value=${form.agentId} onInput=${set("agentId")} maxlength="256" /></label>
        <label>profile <input name="profile" value=${form.profile} onInput=${set("profile")} maxlength="256" /></label>
        <label>channel <input name="channel" value=${form.channel} onInput=${set("channel")} maxlength="256" /></label>
        <label class="check"><input type="checkbox" name="owner" checked=${form.owner} onChange=${set("owner")} /> owner</label>
        ${
          tokens.length > 0
            ? html`<label
                >as token
                <select name="token" value=${form.token} onChange=${set("token")}>
                  <option value="">none</option>
                  ${tokens.map((t) => html`<option key=${t.label} value=${t.label}>${t.label}${t.agentId ? ` (agent ${t.agentId})` : ""}${t.owner ? " (owner)" : ""}</option>`)}
                </select></label
              >`
            : null
        }
        <label
          >mode
          <select name="mode" value=${form.mode} onChange=${set("mode")}>
            ${MODES.map((m) => html`<option key=${m} value=${m}>${m === "" ? `default (${index.data?.mode ?? "…"})` : m}</option>`)}
          </select></label
        >
        <label>hits <input type="number" name="limit" min="1" max="50" value=${form.limit} onInput=${set("limit")} /></label>
        <button type="submit" disabled=${busy}>${busy ? "Searching…" : "Search"}</button>
      </div>
    </form>
    ${error ? html`<${Failure} error=${error} />` : null}
    ${answer ? html`<${Results} answer=${answer} />` : html`<p class="hint">Hits are ranked exactly as that identity's runs rank them; nothing is recorded or learned.</p>`}
  </section>`;
}

const plural = (n: number, noun: string) => `${count(n)} ${noun}${n === 1 ? "" : "s"}`;

function Results({ answer }: { answer: SearchAnswer }) {
  const { upfront } = answer;
  const shown = upfront.toolsBytes + upfront.instructionsBytes;
  // The sentence is built here, not in the template: a formatter may move a template's spaces, never a string's.
  const intro = `${plural(answer.hits.length, "hit")} in mode `;
  const middle =
    `${answer.fallbackReason ? ` (asked ${answer.requestedMode}: ${answer.fallbackReason})` : ""} over ${plural(answer.catalog.size, "visible tool")}. ` +
    `Up front the model gets ${plural(upfront.declaredTools, "tool")} and ${plural(upfront.schemas, "catalog schema")}: `;
  const tail = ` against ${bytes(upfront.directBytes)} in direct mode (${saved(shown, upfront.directBytes)} not sent).`;
  return html`<div class="results">
    <p class="lead">${intro}<strong>${answer.mode}</strong>${middle}<strong>${bytes(shown)}</strong>${tail}</p>
    <ol class="hits">
      ${answer.hits.map(
        (hit) =>
          html`<li key=${hit.id} class="hit">
            <details>
              <summary>
                <span class="mono id">${hit.id}</span>
                <span class="score">${figure(hit.score)}</span>
                ${hit.learned ? html`<span class="badge learned">learned</span>` : null} ${hit.weak ? html`<span class="badge weak">weak</span>` : null}
                <span class="summary">${hit.summary}</span>
              </summary>
              ${hit.signature ? html`<p class="mono signature">${hit.name}${hit.signature}</p>` : null}
              ${hit.detail ? html`<${ExplainView} steps=${hit.detail.steps} />` : null}
            </details>
          </li>`,
      )}
    </ol>
  </div>`;
}
