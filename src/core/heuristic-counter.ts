import type { TokenCounter } from './token-counter.js';

/**
 * The pre-tokenizer of o200k_base, written as one regular expression: it splits text into the
 * pieces BPE merges never cross. Groups: 1 the character before a word (a space, a punctuation mark
 * or nothing), 2 the word (letters, split at lower→upper case changes as in `camelCase`, with an
 * English contraction), 3 one to three digits, 4 a punctuation run, optionally after a space, and
 * the newlines right after it. Everything else is a whitespace piece.
 */
const piecePattern =
  /([^\r\n\p{L}\p{N}]?)((?:[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*)(?:'[sStTmMdD]|'[rR][eE]|'[vV][eE]|'[lL][lL])?)|(\p{N}{1,3})|( ?[^\s\p{L}\p{N}]+[\r\n/]*)|\s*[\r\n]+|\s+(?!\S)|\s+/gu;

const nonAsciiPattern = /[^\x00-\x7f]/g;
const ideographPattern = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]/g;

function nonAsciiCount(text: string): number {
  return text.match(nonAsciiPattern)?.length ?? 0;
}

/** Tokens for the non-ASCII letters of a word: kana, CJK and Hangul nearly one each, alphabets about a third. */
function foreignLetterTokens(word: string, foreign: number): number {
  const ideographs = word.match(ideographPattern)?.length ?? 0;
  return ideographs * 0.85 + (foreign - ideographs) * 0.3;
}

/**
 * Tokens for one word piece, by its shape. Words of up to six letters are one token in every modern
 * BPE vocabulary. A lower-case word after a space is most often a whole dictionary word (prose) and
 * stays one token up to about ten letters; a capitalized word (a `camelCase` part such as
 * `Counter`) up to about eight; a lower-case word glued to punctuation or nothing is often an
 * identifier fragment and splits into sub-words of about five letters sooner; all-capitals words
 * split every three letters or so. Non-ASCII letters cost a third of a token (alphabets) to most of
 * one (CJK). Fitted on the shared mini-swe-agent trajectories against o200k_base.
 */
function wordTokens(word: string, before: string): number {
  const foreign = nonAsciiCount(word);
  if (foreign > 0) return Math.max(1, foreignLetterTokens(word, foreign) + (word.length - foreign) / 4);
  const length = word.length;
  const glued = before === '' || before === ' ' ? 0 : 0.1;
  if (length <= 4) return 1.05 + glued;
  if (isUpperCase(word)) return 1 + (length - 3) / 3 + glued;
  if (before === ' ') return length <= 10 ? 1.05 : 1.05 + (length - 10) / 6;
  if (isUpperCase(word[0]!)) return length <= 8 ? 1.1 + glued : 1.1 + (length - 8) / 4 + glued;
  return length <= 6 ? 1.15 + glued : 1 + (length - 4) / 5 + glued;
}

function isUpperCase(text: string): boolean {
  return text >= 'A' && text <= 'Z' && text.toUpperCase() === text;
}

/**
 * Tokens for one punctuation piece: pairs such as `("` or `):` are single tokens; longer runs cost
 * about half a token per character, and long rules such as `=====` compress further.
 */
function punctuationTokens(piece: string): number {
  const marks = piece.startsWith(' ') ? piece.slice(1).replace(/[\r\n/]+$/, '') : piece;
  const foreign = nonAsciiCount(marks);
  const length = marks.length - foreign;
  const ascii =
    length <= 3
      ? length === 0
        ? 0
        : 1 + Math.max(0, length - 2) * 0.13
      : Math.min(1 + (length - 3) * 0.45, 1.5 + length / 8);
  return Math.max(1, ascii + foreign * 0.75);
}

/** Counts the pieces of `text`; fractional costs add up and are rounded once at the end. */
function estimateTokens(text: string): number {
  let tokens = 0;
  for (const match of text.matchAll(piecePattern)) {
    const [, before, word, digits, punctuation] = match;
    if (word !== undefined) tokens += wordTokens(word, before ?? '');
    else if (punctuation !== undefined) tokens += punctuationTokens(punctuation);
    // A digit group of one to three digits and a whitespace run are one token each.
    else tokens += digits !== undefined ? 1 : 1;
  }
  return Math.round(tokens);
}

/**
 * A zero-dependency {@link TokenCounter} that estimates BPE token counts: it splits text the way
 * o200k_base's pre-tokenizer does (words, digit groups, punctuation runs, whitespace runs) and
 * prices each piece by its kind and length. Much closer than `characters / 4` on code, JSON and
 * logs, where punctuation and whitespace make up a large share of the tokens. For exact OpenAI
 * counts use `createTiktokenCounter` from `agent-compact/tokenizer`; for any provider, anchor
 * either one to the provider's reported usage with `createAnchoredCounter`.
 *
 * @example
 * import { createHeuristicCounter } from 'agent-compact';
 *
 * const counter = createHeuristicCounter();
 * counter.countText('const answer = { value: 42 };'); // 10 (o200k_base: 10)
 */
export function createHeuristicCounter(): TokenCounter {
  return { name: 'heuristic', countText: estimateTokens };
}
