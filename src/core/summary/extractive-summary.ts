import { isCompactorText, isHarnessText, isInterruptNote } from '../_internal/harness-text.js';
import { keyArgument, toolOutcome } from '../_internal/placeholder.js';
import { escapeReservedTags, shortenLine, toolResultText } from '../_internal/text.js';
import type { Message, ToolResultBlock, ToolUseBlock } from '../model/messages.js';
import { createHeuristicCounter } from '../tokens/heuristic-counter.js';
import { countMessagesTokens } from '../tokens/message-tokens.js';
import { agentFindings, currentWork } from './findings.js';
import {
  bridgeText,
  formatSummarySections,
  parseSummarySections,
  type SummarySection,
  summarySections,
} from './summary-format.js';
import type { SummaryModel } from './summary-model.js';

/** The default bound of a summary, as the hard layer's `maxSummaryTokens`. */
const DEFAULT_MAX_TOKENS = 2000;
/** The task (the first user message) is kept longest; later user messages are cut shorter. */
const TASK_CHARS = 2000;
const USER_MESSAGE_CHARS = 400;
const LAST_NOTE_CHARS = 800;
/** Beside the ledger the note is the narrative's only fact: shorter keeps the context small. */
const LEDGER_NOTE_CHARS = 250;
const PATH_CHARS = 200;
/** Lines are cut to this when the summary still does not fit after dropping lines. */
const TIGHT_LINE_CHARS = 200;
const LINE_CHARS = 2000;
/**
 * The agent's findings, alone: the summary's main narrative beside the user's messages, the calls
 * and the errors, up to this share of its budget (`maxTokens`; 600 tokens at the default 2,000).
 */
const FINDINGS_SHARE = 0.3;
/**
 * Beside the ledger and the working set, which hold the files, commands and code, the summary's
 * narrative is the findings and the current state: the findings take up to half its budget, and
 * a share of the history they replace (as the ledger and the working set take a share of the
 * window), never under the floor. At Claude Code's own compaction points (some 150,000 tokens of
 * history) that is the 1,000 tokens of half the default budget, the agent's conclusions in its own
 * words (its own summaries there run some 2,600 tokens); at a hard threshold of 16,000 it stays
 * near the floor, since every hard output's size there brings the next hard nearer (half the
 * budget cost 5.5% more in the replay at --hard 16000: BENCHMARKS.md, section 9).
 */
const LEDGER_FINDINGS_SHARE = 0.5;
const LEDGER_FINDINGS_HISTORY_SHARE = 1 / 120;
const MIN_LEDGER_FINDINGS_TOKENS = 150;
/** The latest request when the ledger beside the summary quotes it whole (and it is longer than this). */
const QUOTED_IN_LEDGER = '(quoted whole in the session ledger)';

const previousSummaryPattern = /<context_summary[^>]*>\n?([\s\S]*?)\n?<\/context_summary>/;

/**
 * The offline summary model: a deterministic extractive summary (the user's messages, files and
 * commands seen, errors, the last assistant text) in the fixed sections. It never fails, so it is
 * both the default and the fallback when a real model fails.
 *
 * @example
 * const compactor = createCompactor({ summarizer: createExtractiveSummaryModel() });
 */
export function createExtractiveSummaryModel(): SummaryModel {
  return {
    specificationVersion: 'v1',
    provider: 'extractive',
    modelId: 'extractive',
    async summarize(request) {
      const text = extractiveSummary(request.messages, request.maxOutputTokens, request.focus, {
        ledger: request.ledger,
      });
      return { text };
    },
  };
}

/**
 * The extractive summary of a history, merged with any earlier summary found at its start. With
 * a `ledger`, the session ledger goes out beside it: only the narrative is written (the task, the
 * last assistant note), not the files, commands, errors and later user messages it holds, and a
 * long latest request the ledger quotes whole is named, not repeated.
 */
export function extractiveSummary(
  messages: readonly Message[],
  maxTokens = DEFAULT_MAX_TOKENS,
  focus?: string,
  { ledger }: { ledger?: string | undefined } = {},
): string {
  const factsInLedger = ledger !== undefined;
  const sections = new Map<SummarySection, string[]>(summarySections.map((name) => [name, []]));
  const add = (section: SummarySection, line: string) => {
    const list = sections.get(section)!;
    if (!list.includes(line)) list.push(line);
  };
  const isTask = () => sections.get('Task and constraints')!.length === 0;
  const { files, lastAssistantText, latestRequest } = readHistory(messages, add, isTask, factsInLedger);
  if (focus !== undefined && focus.trim() !== '')
    add('Task and constraints', `- Focus: ${shortenLine(focus, USER_MESSAGE_CHARS)}`);
  for (const path of files) add('Files touched', `- ${path}`);
  // The ledger holds every message the user typed: a long request it quotes whole is named.
  const named =
    latestRequest !== undefined &&
    latestRequest.length > QUOTED_IN_LEDGER.length &&
    ledger?.includes(latestRequest.trim());
  const request = named ? QUOTED_IN_LEDGER : latestRequest;
  addAgentsWork(add, messages, request, { factsInLedger, maxTokens });
  if (lastAssistantText)
    add(
      'Current state',
      `- Last assistant note: ${shortenLine(lastAssistantText, factsInLedger ? LEDGER_NOTE_CHARS : LAST_NOTE_CHARS)}`,
    );
  if (factsInLedger) {
    // The ledger beside it holds the facts: only the narrative sections that have something.
    for (const [section, lines] of sections) if (lines.length === 0) sections.delete(section);
    return escapeReservedTags(fitToBudget(sections, maxTokens, { onlyPresent: true }));
  }
  // Recall ids are the identity reminder's to mention: a model without the recall tool gets neither.
  add('Next steps', '- Continue the task from the current state.');
  return escapeReservedTags(fitToBudget(sections, maxTokens));
}

/** What a walk through the history found beside the lines it added. */
interface HistoryRead {
  files: Set<string>;
  lastAssistantText: string;
  latestRequest: string | undefined;
}

/**
 * One walk through the history: the user's messages, an earlier summary's sections and each tool
 * call's outcome go to `add` (beside the ledger, which holds those facts, only the earlier
 * summary); the files the calls named, the last assistant text and the latest request come back.
 */
function readHistory(
  messages: readonly Message[],
  add: AddLine,
  isTask: () => boolean,
  factsInLedger: boolean,
): HistoryRead {
  const read: HistoryRead = { files: new Set(), lastAssistantText: '', latestRequest: undefined };
  const toolUses = new Map<string, ToolUseBlock>();
  for (const message of messages) {
    const blocks =
      typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    for (const block of blocks) {
      if (block.type === 'text' && typeof block.text === 'string') {
        readText(block.text, message.role, { add, isTask, factsInLedger, read });
      } else if (block.type === 'tool_use') {
        const toolUse = block as ToolUseBlock;
        toolUses.set(toolUse.id, toolUse);
        const path = factsInLedger ? undefined : pathOf(toolUse.input);
        if (path) read.files.add(path);
      } else if (block.type === 'tool_result' && !factsInLedger) {
        const result = block as ToolResultBlock;
        addOutcome(add, result, toolUses.get(result.tool_use_id));
      }
    }
  }
  return read;
}

/** A text block of the history: the agent's note, an earlier summary, or what the user typed. */
function readText(
  text: string,
  role: Message['role'],
  {
    add,
    isTask,
    factsInLedger,
    read,
  }: { add: AddLine; isTask: () => boolean; factsInLedger: boolean; read: HistoryRead },
): void {
  if (role === 'assistant') {
    if (text.trim()) read.lastAssistantText = text;
    return;
  }
  const previous = previousSummaryPattern.exec(text)?.[1];
  if (previous !== undefined) {
    mergePrevious(add, previous);
    return;
  }
  if (isInstructionOrBoilerplate(text)) return;
  if (!isHarnessText(text) && !isCompactorText(text) && !isInterruptNote(text)) read.latestRequest = text;
  // The ledger beside the summary holds every message the user typed, the first verbatim.
  if (factsInLedger) return;
  add('Task and constraints', `- User: ${shortenLine(text, isTask() ? TASK_CHARS : USER_MESSAGE_CHARS)}`);
}

const counter = createHeuristicCounter();

type AddLine = (section: SummarySection, line: string) => void;

/** An earlier summary's sections, but its current state: the state then is not the state now. */
function mergePrevious(add: AddLine, previous: string): void {
  for (const [section, lines] of parseSummarySections(previous)) {
    if (section === 'Current state') continue;
    for (const line of lines) if (line.trim() !== '- (none)') add(section, line);
  }
}

/** A tool call's outcome under "Done so far", and under "Errors and fixes" when it failed. */
function addOutcome(add: AddLine, result: ToolResultBlock, toolUse: ToolUseBlock | undefined): void {
  const outcome = toolOutcome(result, toolResultText(result));
  const call = `${toolUse?.name ?? 'tool'}(${toolUse ? keyArgument(toolUse.input) : ''})`;
  const status =
    outcome.exitCode !== undefined ? `exit ${outcome.exitCode}` : outcome.failed ? 'failed' : 'ok';
  add('Done so far', `- ${call} → ${status}`);
  if (outcome.failed) add('Errors and fixes', `- ${call}: ${outcome.errorLine ?? status}`);
}

/** The agent's findings in its own words and where its work stands (its last edits, the latest request). */
function addAgentsWork(
  add: AddLine,
  messages: readonly Message[],
  latestRequest: string | undefined,
  { factsInLedger, maxTokens }: { factsInLedger: boolean; maxTokens: number },
): void {
  const budget = factsInLedger
    ? Math.min(
        maxTokens * LEDGER_FINDINGS_SHARE,
        Math.max(
          MIN_LEDGER_FINDINGS_TOKENS,
          countMessagesTokens(messages, counter) * LEDGER_FINDINGS_HISTORY_SHARE,
        ),
      )
    : maxTokens * FINDINGS_SHARE;
  for (const line of agentFindings(messages, Math.floor(budget))) add('Key findings and decisions', line);
  for (const line of currentWork(messages, latestRequest)) add('Current state', line);
}

/**
 * Drops lines until the summary fits `maxTokens`: always from the section with the most lines,
 * its oldest line after the first (the task, the first fact), so recent facts survive longest.
 */
function fitToBudget(
  sections: Map<SummarySection, string[]>,
  maxTokens: number,
  { onlyPresent = false } = {},
): string {
  const kept = new Map(
    [...sections].map(([section, lines]) => [
      section,
      lines.map((line) => ({ line, tokens: counter.countText(line) + 1 })),
    ]),
  );
  const headings = counter.countText(formatSummarySections(new Map()));
  let total = headings + [...kept.values()].flat().reduce((sum, entry) => sum + entry.tokens, 0);
  while (total > maxTokens) {
    const longest = [...kept.values()].reduce((most, lines) => (lines.length > most.length ? lines : most));
    if (longest.length <= 1) break;
    total -= longest.splice(1, 1)[0]!.tokens;
  }
  return formatSummarySections(
    new Map(
      [...kept].map(([section, lines]) => [
        section,
        lines.map((entry) => shortenLine(entry.line, total > maxTokens ? TIGHT_LINE_CHARS : LINE_CHARS)),
      ]),
    ),
    { onlyPresent },
  );
}

function isInstructionOrBoilerplate(text: string): boolean {
  return (
    text.startsWith('Stop working on the task for a moment.') ||
    text.startsWith('<identity>') ||
    text === bridgeText ||
    text.trim() === ''
  );
}

function pathOf(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const record = input as Record<string, unknown>;
  for (const name of ['path', 'file_path', 'filename', 'file']) {
    const value = record[name];
    if (typeof value === 'string' && value.trim()) return shortenLine(value, PATH_CHARS);
  }
  return undefined;
}
