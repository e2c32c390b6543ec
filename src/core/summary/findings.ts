import { fileName, PROSE_FILE_EXTENSIONS, shortenLine } from '../_internal/text.js';
import { toolCallFact } from '../ledger/tool-call-facts.js';
import type { Message, ToolUseBlock } from '../model/messages.js';
import { createHeuristicCounter } from '../tokens/heuristic-counter.js';
import { languageOf } from '../working-set/code-outline.js';
import { lexerOutline } from '../working-set/lexer-outline.js';
import { editsOf, type TextEdit } from '../working-set/tool-edits.js';

/** A finding is one sentence of the agent's, cut to this many characters. */
const SENTENCE_CHARS = 280;
/** Shorter sentences say too little to be a finding ("Done.", "Let me check."). */
const MIN_SENTENCE_CHARS = 24;
/**
 * A conclusion that names no code says something only at this length: "Confirmed — you're right."
 * or "An integration test failed." are replies, not findings.
 */
const MIN_PROSE_WORDS = 7;
/**
 * A sentence that names code needs this many words beside the names to say something about them:
 * "Committed as `805f7b2c`.", "`up/k`, `down/j` - Navigate" and "Task 4: checkpoint.go,
 * committed.go" are labels and lists (each met at Claude Code's compaction points in the shared
 * sessions), "`hasAnyLiveSession` found `test.json` and returned true" is a finding.
 */
const MIN_WORDS_BESIDE_CODE = 3;
/**
 * What a sentence names counts up to this many names: beyond, a list of names (a table row, an
 * inventory) would outrank the agent's latest conclusion on what it lists, not on what it says.
 */
const MAX_COUNTED_MENTIONS = 4;
/**
 * A sentence whose words (of three letters or more) are this much in a finding already chosen says
 * it again ("Missing nil check - `ReadCommitted` can return `(nil, nil)`" beside "Nil check added -
 * `ReadCommitted` can return `(nil, nil)` if the checkpoint was deleted"): the better one is kept.
 */
const REPEATED_WORDS_SHARE = 0.75;
/** The last edits the current state names, and how much of each. */
const LAST_EDITS = 3;
const EDIT_LINE_CHARS = 120;
const REQUEST_CHARS = 400;
/** How much a sentence's place weighs against what it names: the newest counts this much more. */
const RECENCY_WEIGHT = 3;

const counter = createHeuristicCounter();

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
 * or decisions (names with a few words about them, not lists of names), the best by what they
 * name and how recent they are, a sentence that says again what a better one says left out,
 * within `maxTokens`, in the order it wrote them.
 */
export function agentFindings(messages: readonly Message[], maxTokens: number): string[] {
  const sentences: { text: string; at: number; score: number; words: Set<string> }[] = [];
  const texts = messages.flatMap((message) => (message.role === 'assistant' ? assistantTexts(message) : []));
  texts.forEach((text, index) => {
    for (const sentence of splitSentences(text)) {
      if (sentence.length < MIN_SENTENCE_CHARS || narration.test(sentence)) continue;
      const mentions = new Set(sentence.match(codeMention) ?? []).size;
      const concludes = conclusion.test(sentence) ? 1 : 0;
      if (mentions === 0 && (concludes === 0 || wordCount(sentence) < MIN_PROSE_WORDS)) continue;
      if (mentions > 0 && wordCount(sentence.replace(codeMention, ' ')) < MIN_WORDS_BESIDE_CODE) continue;
      const recency = (RECENCY_WEIGHT * (index + 1)) / texts.length;
      const text = shortenLine(sentence, SENTENCE_CHARS);
      sentences.push({
        text,
        at: sentences.length,
        score: Math.min(mentions, MAX_COUNTED_MENTIONS) + concludes + recency,
        words: new Set(text.toLowerCase().match(/[a-z_]\w{2,}/g) ?? []),
      });
    }
  });
  const chosen: typeof sentences = [];
  let used = 0;
  // The best first; of equals, the later: an agent that says a thing again says it as it now stands.
  for (const sentence of [...sentences].sort(
    (left, right) => right.score - left.score || right.at - left.at,
  )) {
    const tokens = counter.countText(`- ${sentence.text}\n`);
    if (used + tokens > maxTokens) continue;
    if (chosen.some((finding) => repeats(sentence.words, finding.words))) continue;
    used += tokens;
    chosen.push(sentence);
  }
  return chosen.sort((left, right) => left.at - right.at).map((sentence) => `- ${sentence.text}`);
}

/** Whether a sentence of these words says what a finding of `chosen` words says already. */
function repeats(words: ReadonlySet<string>, chosen: ReadonlySet<string>): boolean {
  if (words.size === 0) return false;
  let shared = 0;
  for (const word of words) if (chosen.has(word)) shared++;
  return shared / words.size >= REPEATED_WORDS_SHARE;
}

/**
 * Where the work stands: what the last edits did (file and the first line they added, or removed)
 * and what the latest request asks, newest last.
 */
export function currentWork(messages: readonly Message[], latestRequest: string | undefined): string[] {
  const edits: TextEdit[] = [];
  for (const message of messages) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const block of message.content) {
      if (block.type !== 'tool_use') continue;
      const use = block as ToolUseBlock;
      const fact = toolCallFact(use);
      if (fact.kind !== 'change') continue;
      for (const edit of editsOf(use, fact.paths[0])) {
        if (edit.movedTo !== undefined) continue;
        edits.push(edit);
      }
    }
  }
  // An edit that reads like a later one (the same file, the same line) is named once, last.
  const latest: string[] = [];
  for (let index = edits.length - 1; index >= 0 && latest.length < LAST_EDITS; index--) {
    const edit = edits[index]!;
    const line = `${edit.whole ? 'wrote ' : ''}${fileName(edit.path)}: ${whatEditDid(edit)}`;
    if (!latest.includes(line)) latest.unshift(line);
  }
  const lines = latest.map(
    (edit, index, list) => `- ${index === list.length - 1 ? 'Last edit' : 'Edit'}: ${edit}`,
  );
  if (latestRequest) lines.push(`- Latest request: ${shortenLine(latestRequest, REQUEST_CHARS)}`);
  return lines;
}

/**
 * What an edit did: the first line it added (a line the replaced text did not have), else the
 * first it removed; after where it is when another line says so: the first definition its new text
 * holds (the function it changed, as written), else the line it anchored on (the first it kept),
 * the text the agent's next edit there is likely to match.
 */
function whatEditDid({ path, oldText, newText, whole }: TextEdit): string {
  const lines = (text: string) => text.split('\n').filter((line) => line.trim() !== '');
  const [before, after] = [lines(oldText), lines(newText)];
  // A file written whole is named by its first line, as its reader sees it first.
  if (whole) return shortenLine(after[0] ?? '(empty)', EDIT_LINE_CHARS);
  const kept = new Set(before.map((line) => line.trim()));
  const left = new Set(after.map((line) => line.trim()));
  const added = after.find((line) => !kept.has(line.trim()))?.trim();
  const removed = before.find((line) => !left.has(line.trim()))?.trim();
  const change =
    added !== undefined
      ? shortenLine(added, EDIT_LINE_CHARS)
      : removed !== undefined
        ? `removed ${shortenLine(removed, EDIT_LINE_CHARS)}`
        : shortenLine(after[0] ?? '(no text)', EDIT_LINE_CHARS);
  const language = languageOf(path);
  const definition = language === undefined ? undefined : lexerOutline(language, newText, 1)[0]?.signature;
  const anchor = after[0]?.trim();
  const where = definition ?? (anchor !== undefined && kept.has(anchor) ? anchor : undefined);
  if (where === undefined || (added !== undefined && (where.startsWith(added) || added.startsWith(where))))
    return change;
  return `${shortenLine(where, EDIT_LINE_CHARS)} … ${change}`;
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
