/** Learning from use per scope, in counts; learned words only where the operator keeps them. */
import { html } from "htm/preact";
import { useState } from "preact/hooks";
import { api, ApiError } from "../api.js";
import { count } from "../format.js";
import { usePoll } from "../poll.js";
import type { LearningAnswer, WordsAnswer } from "../../../src/admin/admin-wire-types.js";
import { Failure, Loading, Pager } from "../ui.js";

export function LearningPage() {
  const [offset, setOffset] = useState(0);
  const learning = usePoll(() => api<LearningAnswer>(`/learning?offset=${offset}&limit=50`), 10_000, [offset]);
  if (learning.error) return html`<${Failure} error=${learning.error} />`;
  if (!learning.data) return html`<${Loading} />`;
  const { enabled, stats, scopes, wordsKept } = learning.data;
  if (!enabled)
    return html`<section>
      <h2>Learning</h2>
      <p class="hint">Learning from use is off (tools.toolSearch.learning).</p>
    </section>`;
  return html`<section>
    <h2>Learning</h2>
    ${stats ? html`<p class="lead">${summary(stats)}</p>` : null}
    <table class="scopes">
      <thead>
        <tr>
          <th>scope</th>
          <th>tenant</th>
          <th class="num">records</th>
          <th class="num">active</th>
          <th class="num">tools</th>
        </tr>
      </thead>
      <tbody>
        ${scopes.map(
          (s) =>
            html`<tr key=${s.scope}>
              <td class="mono">${s.scope}</td>
              <td class="mono">${s.tenant || "–"}</td>
              <td class="num">${count(s.records)}</td>
              <td class="num">${count(s.active)}</td>
              <td class="num">${count(s.tools)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    ${scopes.length === 0 ? html`<p class="hint">Nothing learned yet: a search followed by a successful call teaches once three sessions agree.</p>` : null}
    <${Pager} offset=${offset} limit=${50} total=${learning.data.total} go=${setOffset} />
    <${Words} kept=${wordsKept} />
  </section>`;
}

/** One sentence, built as a string: a formatter may move a template's spaces, never a string's. */
function summary(stats: NonNullable<LearningAnswer["stats"]>): string {
  return `${count(stats.records)} records (${count(stats.active)} active) for ${count(stats.tools)} tools in ${count(stats.scopes)} scopes; ${count(stats.pending)} pending; store ${stats.store}.`;
}

function Words({ kept }: { kept: boolean }) {
  const [scope, setScope] = useState("");
  const [tool, setTool] = useState("");
  const [answer, setAnswer] = useState<WordsAnswer | undefined>(undefined);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const look = async (event: Event) => {
    event.preventDefault();
    try {
      setAnswer(await api<WordsAnswer>(`/learning/words?scope=${encodeURIComponent(scope)}&tool=${encodeURIComponent(tool)}`));
      setError(undefined);
    } catch (failure) {
      setError(failure instanceof ApiError ? failure : new ApiError(0, "NETWORK", String(failure)));
    }
  };
  return html`<div class="words">
    <h3>Learned words</h3>
    <p class="hint">
      ${kept ? "This server keeps learned words readable." : "This server keeps counts only; learned words are not shown (tools.toolSearch.learning.recordTerms)."}
    </p>
    <form onSubmit=${look}>
      <label>scope <input value=${scope} onInput=${(e: Event) => setScope((e.target as HTMLInputElement).value)} required maxlength="256" /></label>
      <label>tool <input value=${tool} onInput=${(e: Event) => setTool((e.target as HTMLInputElement).value)} required maxlength="256" /></label>
      <button type="submit">Look up</button>
    </form>
    ${error ? html`<${Failure} error=${error} />` : null}
    ${
      answer
        ? answer.kept
          ? html`<ul>
              ${answer.words.map((w) => html`<li key=${w.term}><span class="mono">${w.term}</span> ${w.count} (${w.sessions} sessions)</li>`)}
            </ul>`
          : html`<p>${answer.why}</p>`
        : null
    }
  </div>`;
}
