/**
 * Where the agent's attention is at a hard compaction: the names its latest turns and the latest
 * human request use. A file too large to go back whole goes back as the definitions those names
 * point at, beside the regions of its edits: the agent most often edits next what it just named.
 */
import { blockText } from '../_internal/text.js';
import { contentBlocks, type Message } from '../model/messages.js';
import { identifierWords } from '../working-set/code-names.js';
import { outlineFile } from '../working-set/outline-file.js';
import { latestHumanRequest } from './human-request.js';

/** The latest assistant turns read for names: about the span of one step of the work. */
const FOCUS_TURNS = 12;
/** Of each block, this much is read (a large write says little about where the agent looks). */
const SCAN_CHARS = 4000;
/** Lines kept above a definition: its doc comment, where an edit of it often starts. */
const DOC_LINES = 4;
/** A definition's region is cut to this many lines from its start. */
const MAX_DEFINITION_LINES = 60;

/** How much the agent's latest words use each name: more, and more recently, weigh more. */
export function focusNames(history: readonly Message[]): Map<string, number> {
  const weights = new Map<string, number>();
  const turns = history.filter((message) => message.role === 'assistant').slice(-FOCUS_TURNS);
  const request = latestHumanRequest(history) ?? [];
  const add = (text: string, weight: number) => {
    for (const [name] of text.slice(0, SCAN_CHARS).matchAll(identifierWords))
      weights.set(name, (weights.get(name) ?? 0) + weight);
  };
  for (const block of request) if (block.type === 'text') add(blockText(block), 1);
  turns.forEach((turn, index) => {
    const weight = (index + 1) / turns.length;
    for (const block of contentBlocks(turn)) add(blockText(block), weight);
  });
  return weights;
}

/**
 * Zero-based line ranges of the definitions in `text` the focus names, the least weighty first
 * (each from its doc comment, at most {@link MAX_DEFINITION_LINES} lines).
 */
export function focusRanges(
  path: string,
  text: string,
  focus: ReadonlyMap<string, number>,
): [number, number][] {
  if (focus.size === 0) return [];
  const definitions = outlineFile(path, text, undefined) ?? [];
  const weighed = definitions.flatMap((definition) => {
    const weight = focus.get(definition.name) ?? focus.get(definition.name.split('.').at(-1)!) ?? 0;
    if (weight === 0) return [];
    const start = Math.max(0, definition.line - 1 - DOC_LINES);
    const end = Math.min(definition.endLine - 1, definition.line - 1 + MAX_DEFINITION_LINES);
    return [{ weight, range: [start, end] as [number, number] }];
  });
  return weighed.sort((left, right) => left.weight - right.weight).map((each) => each.range);
}
