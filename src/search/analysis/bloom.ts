/**
 * A Bloom filter over short strings: set membership in ~10 bits a word, with ~1% false
 * positives and no false negatives. The filter of English words (english-words.ts) is built
 * offline by scripts/generate-english-words.ts with this same code, so hashing must never
 * change without regenerating it.
 */
import { InternalError } from "../../errors.js";

const BITS_PER_WORD = 10;
const HASHES = 7;

export class BloomFilter {
  readonly #bits: Uint32Array;
  readonly #size: number;

  /** `bits` (from `bytes`) restores a saved filter; otherwise an empty one sized for `words` words. */
  constructor(words: number, bits?: Uint32Array) {
    this.#size = Math.max(64, words * BITS_PER_WORD);
    this.#bits = bits ?? new Uint32Array(Math.ceil(this.#size / 32));
    // The saved filters are generated with this code (english-words.ts): a mismatch is a build bug.
    if (this.#bits.length !== Math.ceil(this.#size / 32)) throw new InternalError("bloom: size mismatch");
  }

  add(word: string): void {
    this.#each(word, (bit) => (this.#bits[bit >>> 5]! |= 1 << (bit & 31)));
  }

  has(word: string): boolean {
    let all = true;
    this.#each(word, (bit) => (all &&= (this.#bits[bit >>> 5]! & (1 << (bit & 31))) !== 0));
    return all;
  }

  get bits(): Uint32Array {
    return this.#bits;
  }

  /** Double hashing over two FNV-1a variants (Kirsch–Mitzenmacher). */
  #each(word: string, visit: (bit: number) => void): void {
    let h1 = 0x811c9dc5;
    let h2 = 0x01000193;
    for (let i = 0; i < word.length; i++) {
      const c = word.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 ^ c, 0x5bd1e995) ^ (h2 >>> 15);
    }
    for (let k = 0; k < HASHES; k++) visit(((h1 + k * (h2 | 1)) >>> 0) % this.#size);
  }
}
