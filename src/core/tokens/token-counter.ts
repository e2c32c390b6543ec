/**
 * The token counting contract. A `TokenCounter` counts plain text; {@link countMessageTokens} and
 * the incremental counter build message counts from it (text and arguments of each block plus a
 * fixed per-message and per-block overhead), never from `JSON.stringify(...).length`.
 */
export interface TokenCounter {
  readonly specificationVersion: 'v1';
  /** Short name, e.g. `o200k`, `cl100k`, `heuristic`. */
  readonly name: string;
  /** Tokens in a piece of plain text. */
  countText(text: string): number;
}
