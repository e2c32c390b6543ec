import { escapeReservedTags, shortenLine } from '../_internal/text.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { LedgerCommand, LedgerFile, LedgerState } from './ledger-state.js';

/**
 * A user message is kept whole up to this many characters (instructions are what users complain
 * compaction loses); a longer one is a paste, cut with the whole of it in the archive.
 */
const USER_MESSAGE_CHARS = 2400;
/** What is kept of a loaded skill or a long paste: the line that says what it is. */
const PASTE_CHARS = 160;
/** Commands are shown to this many characters: enough to tell one from another. */
const COMMAND_CHARS = 64;
/** Plan items are verbatim up to this many characters each. */
const PLAN_ITEM_CHARS = 300;

export const ledgerOpen = '<session_ledger';
const header = 'Recorded by the compactor, not the summarizer (tN = assistant turn N, rN = recall id).';

/** How a ledger is rendered: its budget and where the originals of dropped lines can be recalled. */
export interface RenderLedgerOptions {
  maxTokens: number;
  counter: TokenCounter;
  /** The archive id holding a tool call's result, when it has one of its own. */
  recallOf?: (toolUseId: string) => string | undefined;
  /** The archive id of the history the summary replaces (where every dropped line can be found). */
  historyId?: string;
}

interface Section {
  title: string;
  lines: string[];
  /** How many lines were dropped to fit. */
  dropped: number;
}

/** A line that may be dropped to fit: section and line index. */
type Droppable = [section: number, line: number];

/**
 * The ledger as a plain-text `<session_ledger>` block within `maxTokens`: the plan verbatim, the
 * user's messages, files changed and read, commands with exit status and first error line, other
 * errors. Over budget, the oldest lines go first, in this order: successful commands, files read,
 * failed commands, errors, user messages (never the first), files changed; the plan always stays.
 * Undefined when the ledger is empty.
 */
export function renderLedger(state: LedgerState, options: RenderLedgerOptions): string | undefined {
  const { sections, dropOrder } = ledgerSections(state, options);
  if (sections.every((section) => section.lines.length === 0)) return undefined;
  const { counter, maxTokens } = options;
  const cost = sections.map((section) => section.lines.map((line) => counter.countText(line) + 1));
  const fixed =
    counter.countText(header) +
    sections.reduce((sum, section) => sum + counter.countText(section.title) + 2, 0);
  let total = fixed + NOTE_TOKENS + cost.flat().reduce((sum, tokens) => sum + tokens, 0);
  const drop = ([sectionIndex, lineIndex]: Droppable) => {
    total -= cost[sectionIndex]![lineIndex]!;
    sections[sectionIndex]!.lines[lineIndex] = '';
    sections[sectionIndex]!.dropped++;
  };
  let next = 0;
  while (next < dropOrder.length && total > maxTokens) drop(dropOrder[next++]!);
  // The estimate misses how lines join: check the text itself and drop more while it is over.
  let text = formatLedger(sections, options.historyId);
  while (next < dropOrder.length && counter.countText(text) > maxTokens) {
    drop(dropOrder[next++]!);
    text = formatLedger(sections, options.historyId);
  }
  return text;
}

/** About what the "(N earlier not shown)" notes cost. */
const NOTE_TOKENS = 30;

function formatLedger(sections: readonly Section[], historyId: string | undefined): string {
  const recall = historyId ? `; recall ${historyId}` : '';
  const body = sections
    .filter((section) => section.lines.length > 0)
    .map((section) => {
      const kept = section.lines.filter((line) => line !== '');
      const note = section.dropped > 0 ? [`- (${section.dropped} earlier not shown${recall})`] : [];
      return [`## ${section.title}`, ...note, ...kept].join('\n');
    })
    .join('\n');
  return `${ledgerOpen}>\n${header}\n${escapeReservedTags(body)}\n</session_ledger>`;
}

/** The sections in display order, and which lines go first when over budget. */
function ledgerSections(
  state: LedgerState,
  options: RenderLedgerOptions,
): { sections: Section[]; dropOrder: Droppable[] } {
  const recall = (id: string) => {
    const archived = options.recallOf?.(id);
    return archived ? ` ${archived}` : '';
  };
  // Short lines: a successful run without an exit code in its output says nothing more.
  const commandLine = (entry: LedgerCommand) => {
    const status =
      entry.exitCode !== undefined ? ` → exit ${entry.exitCode}` : entry.failed ? ' → failed' : '';
    const error = entry.errorLine ? `: ${entry.errorLine}` : '';
    const runs = entry.runs > 1 ? ` ×${entry.runs}` : '';
    // A run that went well says all there is in its line; a failed one names where its output is.
    const where = entry.failed ? recall(entry.toolUseId) : '';
    return `- ${shortenLine(entry.command, COMMAND_CHARS)}${runs}${status}${error}${where}`;
  };
  const root = commonDirectory(state.files.map((file) => file.path));
  const fileLine = (file: LedgerFile) => {
    const action = file.changed && file.action === 'read' ? 'changed, read' : file.action;
    const shown = file.changed ? `${action} ` : '';
    return `- ${file.path.slice(root.length)}${shown ? ` ${shown.trim()}` : ''}${recall(file.toolUseId)}`;
  };
  const plan = state.plan;
  const section = (title: string, lines: string[]): Section => ({ title, lines, dropped: 0 });
  const sections = [
    section(
      plan ? `Plan in force (${plan.tool}, t${plan.turn}, verbatim)` : 'Plan',
      plan ? plan.items.map((item) => `- ${shortenLine(item, PLAN_ITEM_CHARS)}`) : [],
    ),
    section(
      'Messages the user typed (verbatim)',
      state.userMessages.map((message) => `- t${message.turn}: ${userLine(message.text)}`),
    ),
    section(
      `Files changed${root ? ` (under ${root})` : ''}`,
      state.files.filter((file) => file.changed).map(fileLine),
    ),
    section(
      `Files read${root ? ' (same root)' : ''}`,
      state.files.filter((file) => !file.changed).map(fileLine),
    ),
    section('Commands (exit status: first error line)', state.commands.map(commandLine)),
    section(
      'Errors of other tools',
      state.errors.map((error) => `- t${error.turn} ${error.call}: ${error.line}`),
    ),
  ];
  const [, users, changed, read, , errors] = sections as [
    Section,
    Section,
    Section,
    Section,
    Section,
    Section,
  ];
  const indices = (target: Section, from = 0) =>
    target.lines.slice(from).map((_, index) => [sections.indexOf(target), index + from] as Droppable);
  const commandIndices = (failed: boolean) =>
    state.commands.flatMap((entry, index) => (entry.failed === failed ? [[4, index] as Droppable] : []));
  const dropOrder = [
    ...commandIndices(false),
    ...indices(read),
    ...commandIndices(true),
    ...indices(errors),
    ...indices(users, 1),
    ...indices(changed),
  ];
  return { sections, dropOrder };
}

/** A typed message whole; a loaded skill or an over-long paste by its first line. */
function userLine(text: string): string {
  const pasted = text.startsWith('Base directory for this skill:') || text.length > USER_MESSAGE_CHARS;
  return shortenLine(text, pasted ? PASTE_CHARS : USER_MESSAGE_CHARS);
}

/** The directory every path starts with (ending in `/`), so long absolute paths are written once. */
function commonDirectory(paths: readonly string[]): string {
  if (paths.length < 2) return '';
  let prefix = paths[0]!;
  for (const path of paths) {
    while (!path.startsWith(prefix)) prefix = prefix.slice(0, -1);
  }
  return prefix.slice(0, prefix.lastIndexOf('/') + 1);
}
