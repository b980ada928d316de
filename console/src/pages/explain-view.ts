/**
 * One hit's explain steps as a readable breakdown: each ranked list with, per request word, the
 * term that scored and a bar of its score split over the fields (name, toolset, description,
 * params), then sum × coordination × name precision; the other steps as sentences.
 */
import { html } from "htm/preact";
import { figure } from "../format.js";
import type { FieldName, RankStep, ScoreDetail } from "../../../src/admin/admin-wire-types.js";

const FIELDS: FieldName[] = ["name", "toolset", "description", "params"];

export function ExplainView({ steps }: { steps: RankStep[] }) {
  return html`<ol class="steps">
    ${steps.map((step, i) => html`<li key=${i} class=${`step step-${step.step}`}>${stepView(step)}</li>`)}
  </ol>`;
}

function stepView(step: RankStep) {
  if (step.step !== "whole" && step.step !== "clause") return html`<span>${step.label}</span>`;
  const list = step.step === "whole" ? "whole request" : `clause ${step.clause ?? "?"}: “${step.text}”`;
  return html`<div>
    <div class="step-head">${list}: rank ${step.rank}, relative score ${figure(step.score)}${step.index === "client" ? " (the run's client tools)" : ""}</div>
    ${step.bm25f ? html`<${Bm25fTable} detail=${step.bm25f} />` : null}
  </div>`;
}

/** A word's bar is as long as its score against the list's best word; its fields grow by their share of it (summing to 1, so they fill it). */
function Bm25fTable({ detail }: { detail: ScoreDetail }) {
  const top = Math.max(...detail.words.map((w) => w.score), 1e-9);
  return html`<table class="bm25f">
    <thead>
      <tr>
        <th>word</th>
        <th>term</th>
        <th>via</th>
        <th class="num">score</th>
        <th>split over the fields</th>
      </tr>
    </thead>
    <tbody>
      ${detail.words.map(
        (w, i) =>
          html`<tr key=${i}>
            <td class="mono">${w.word}</td>
            <td class="mono">${w.term}</td>
            <td>${w.via}</td>
            <td class="num">${figure(w.score)}</td>
            <td class="split">
              <div class="bar" title=${FIELDS.map((f) => `${f} ${figure(w.fields[f])}`).join(", ")} style=${{ width: `${(100 * w.score) / top}%` }}>
                ${FIELDS.filter((f) => w.fields[f] > 0).map((f) => html`<span key=${f} class=${`field f-${f}`} style=${{ flexGrow: w.fields[f] / w.score }}>${f}</span>`)}
              </div>
            </td>
          </tr>`,
      )}
    </tbody>
    <tfoot>
      <tr>
        <td colspan="5" class="formula">
          sum ${figure(detail.sum)} × coordination ${figure(detail.coordination)} × name precision ${figure(detail.namePrecision)} = ${figure(detail.score)}
        </td>
      </tr>
    </tfoot>
  </table>`;
}
