/**
 * Token estimates with a real BPE tokenizer: gpt-tokenizer (pure JavaScript, no dependencies,
 * no install scripts), encoding o200k_base (GPT-4o, GPT-4.1, GPT-5, o-series). An estimate:
 * a provider renders `tools` into its own prompt format before tokenizing, so the exact count
 * differs by a few percent; the ratios between modes are what the figures are for.
 */
import { countTokens as countO200k } from "gpt-tokenizer/encoding/o200k_base";

export const TOKENIZER = { package: "gpt-tokenizer", version: "4.0.0", encoding: "o200k_base" } as const;

export function countTokens(text: string): number {
  return countO200k(text);
}
