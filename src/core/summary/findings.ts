import { fileName, PROSE_FILE_EXTENSIONS, shortenLine } from '../_internal/text.js';
import { toolCallFact } from '../ledger/tool-call-facts.js';
import type { Message, ToolUseBlock } from '../model/messages.js';
import { editsOf } from '../working-set/tool-edits.js';

/** A finding is one sentence of the agent's, cut to this many characters. */
const SENTENCE_CHARS = 280;
/** Shorter sentences say too little to be a finding ("Done.", "Let me check."). */
const MIN_SENTENCE_CHARS = 24;
/**
 * A conclusion that names no code says something only at this length: "Confirmed — you're right."
 * or "An integration test failed." are replies, not findings.
 */
const MIN_PROSE_WORDS = 7;
/** The last edits the current state names, and how much of each. */
const LAST_EDITS = 3;
const EDIT_LINE_CHARS = 120;
const REQUEST_CHARS = 400;
/** How much a sentence's place weighs against what it names: the newest counts this much more. */
const RECENCY_WEIGHT = 3;

/**
 * Code in prose: `backticks`, calls, paths with an extension, camelCase, snake_case, PascalCase
 * words. A path's first part and a file's name are bounded: a run of `a.b.c…` or `a-b-c…` has a
 * word boundary at every other character, and an unbounded part tried from each of them to the
 * run's end made a sentence quadratic (100 KB of `a-b-…`: 65 s).
 */
const codeMention = new RegExp(
  String.raw`\`[^\`\n]{2,80}\`|\b[\w.-]{1,120}\/[\w./-]+|\b[\w-]{1,120}\.(?:${PROSE_FILE_EXTENSIONS})\b|\b[A-Za-z_]\w*\(\)|\b[a-z]+[A-Z]\w*|\b[a-z]+_[a-z_]\w*|\b[A-Z][a-z]+[A-Z]\w*`,
  'g',
);
/** Words that mark a conclusion, a cause or a decision. */
const conclusion =
  /\b(because|caus|root cause|the (?:issue|problem|bug) (?:is|was)|turns out|found|means|instead|decid|should|must|so that|fix|fails?|failing|works|missing|wrong|never|always|only|confirmed|verified)/i;
/** Openings that announce the next step rather than state anything. */
const narration =
  /^(?:now,? |first,? |next,? )?(?:let me|let's|okay|ok|perfect|great|good|excellent|done|i(?:'ll| will| need to|'m going to| am going to) (?:check|look|read|run|open|search|see|start|try|inspect|examine|verify))\b/i;

/**
 * The agent's conclusions in its own words: sentences of its text that name code, files, causes
 * or decisions, the best by what they name and how recent they are, within `maxChars`, in the
 * order it wrote them.
 */
export function agentFindings(messages: readonly Message[], maxChars: number): string[] {
  const sentences: { text: string; at: number; score: number }[] = [];
  const texts = messages.flatMap((message) => (message.role === 'assistant' ? assistantTexts(message) : []));
  texts.forEach((text, index) => {
    for (const sentence of splitSentences(text)) {
      if (sentence.length < MIN_SENTENCE_CHARS || narration.test(sentence)) continue;
      const mentions = new Set(sentence.match(codeMention) ?? []).size;
      const concludes = conclusion.test(sentence) ? 1 : 0;
      if (mentions === 0 && (concludes === 0 || wordCount(sentence) < MIN_PROSE_WORDS)) continue;
      const recency = (RECENCY_WEIGHT * (index + 1)) / texts.length;
      sentences.push({
        text: sentence,
        at: sentences.length,
        score: mentions + concludes + recency,
      });
    }
  });
  const chosen: typeof sentences = [];
  const seen = new Set<string>();
  let used = 0;
  for (const sentence of [...sentences].sort((left, right) => right.score - left.score)) {
    // Every sentence is at least MIN_SENTENCE_CHARS long: none fits in less room.
    if (maxChars - used < MIN_SENTENCE_CHARS) break;
    const text = shortenLine(sentence.text, SENTENCE_CHARS);
    if (seen.has(text) || used + text.length > maxChars) continue;
    seen.add(text);
    used += text.length + 3;
    chosen.push({ ...sentence, text });
  }
  return chosen.sort((left, right) => left.at - right.at).map((sentence) => `- ${sentence.text}`);
}

/**
 * Where the work stands: what the last edits did (file and the first line they wrote) and what
 * the latest request asks, newest last.
 */
export function currentWork(messages: readonly Message[], latestRequest: string | undefined): string[] {
  const edits: string[] = [];
  for (const message of messages) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const block of message.content) {
      if (block.type !== 'tool_use') continue;
      const use = block as ToolUseBlock;
      const fact = toolCallFact(use);
      if (fact.kind !== 'change') continue;
      for (const edit of editsOf(use, fact.paths[0])) {
        if (edit.movedTo !== undefined) continue;
        const first = edit.newText.split('\n').find((line) => line.trim() !== '') ?? '(removed text)';
        const name = fileName(edit.path);
        edits.push(`${edit.whole ? 'wrote ' : ''}${name}: ${shortenLine(first, EDIT_LINE_CHARS)}`);
      }
    }
  }
  // An edit that reads like a later one (the same file, the same first line) is named once, last.
  const latest: string[] = [];
  for (let index = edits.length - 1; index >= 0 && latest.length < LAST_EDITS; index--)
    if (!latest.includes(edits[index]!)) latest.unshift(edits[index]!);
  const lines = latest.map(
    (edit, index, list) => `- ${index === list.length - 1 ? 'Last edit' : 'Edit'}: ${edit}`,
  );
  if (latestRequest) lines.push(`- Latest request: ${shortenLine(latestRequest, REQUEST_CHARS)}`);
  return lines;
}

function assistantTexts(message: Message): string[] {
  if (typeof message.content === 'string') return [message.content];
  return message.content.flatMap((block) =>
    block.type === 'text' && typeof block.text === 'string' ? [block.text] : [],
  );
}

/** Lines drawn rather than written: trees, boxes and tables (`+---+` borders included). */
const drawing = /^(?:[│├└┌┐┘┬┴┼╭╮╯╰─═║|]|\+[-=+])/;
/** A Markdown heading: one to six `#` and a space. */
const heading = /^\s*#{1,6}\s/;

/**
 * Sentences of a text: its prose lines (not fenced code, drawings, tables, headings or a line that
 * only introduces a list), each split after `.`, `!` or `?` before a capital; list markers off.
 */
function splitSentences(text: string): string[] {
  let inFence = false;
  const prose = text.split(/\n+/).filter((line) => {
    if (line.trimStart().startsWith('```')) {
      inFence = !inFence;
      return false;
    }
    return !inFence && !drawing.test(line.trimStart()) && !heading.test(line);
  });
  return prose
    .flatMap((line) => line.split(/(?<=[.!?])\s+(?=[A-Z`])/))
    .map((sentence) =>
      sentence
        .replace(/^\s*(?:[-*+•]|\d+[.)])\s*/, '')
        .replace(/\*\*/g, '')
        .replace(/^[*_]+(?=\S)/, '')
        .trim(),
    )
    .filter((sentence) => sentence !== '' && !sentence.endsWith(':'));
}

function wordCount(sentence: string): number {
  return sentence.split(/\s+/).filter((word) => /\w/.test(word)).length;
}
