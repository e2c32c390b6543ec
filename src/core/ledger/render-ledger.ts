import { escapeReservedTags } from '../_internal/text.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import {
  type Droppable,
  type LedgerItem,
  type LedgerSection,
  ledgerSections,
  sectionLines,
} from './ledger-sections.js';
import type { LedgerState } from './ledger-state.js';

export const ledgerOpen = '<session_ledger';
const header = 'Recorded by the compactor, not the summarizer (tN = assistant turn N, rN = recall id).';
/** The header when the ledger names no archive ids. */
const headerWithoutIds = 'Recorded by the compactor, not the summarizer (tN = assistant turn N).';
/** About what the "(N earlier not shown)" notes cost. */
const NOTE_TOKENS = 30;

/** How a ledger is rendered: its budget and where the originals of dropped lines can be recalled. */
export interface RenderLedgerOptions {
  maxTokens: number;
  counter: TokenCounter;
  /** The archive id holding a tool call's result, when it has one of its own. */
  recallOf?: (toolUseId: string) => string | undefined;
  /** The archive id of the history the summary replaces (where every dropped line can be found). */
  historyId?: string;
  /** User texts the compacted context repeats verbatim after the ledger (the latest request). */
  shownAfter?: ReadonlySet<string>;
  /** Files the working set beside the ledger shows by path: not listed again. */
  filesShown?: ReadonlySet<string>;
  /**
   * Whether the ledger names archive ids (`recallOf`, `historyId`): `false` when the model has no
   * recall tool to use them with.
   * @default true
   */
  recall?: boolean;
}

/**
 * The ledger as a plain-text `<session_ledger>` block within `maxTokens`: the plan verbatim, the
 * user's messages, files changed and read (one line per directory), commands with exit status and
 * first error line, other errors. Over budget, the oldest items go first, in this order: successful
 * commands, files read, failed commands, errors, user messages (never the first), files changed;
 * the plan always stays. The newest instructions the harness loaded in the user's turn (a skill, a
 * plan to implement) are kept whole on top of the budget, in up to `maxTokens` more.
 * Undefined when the ledger is empty.
 */
export function renderLedger(state: LedgerState, options: RenderLedgerOptions): string | undefined {
  const { counter, maxTokens, recall = true } = options;
  const historyId = recall ? options.historyId : undefined;
  const head = recall ? header : headerWithoutIds;
  const { sections, dropOrder, instructionTokens } = ledgerSections(state, {
    counter,
    recallOf: recall ? options.recallOf : undefined,
    instructionBudget: maxTokens,
    shownAfter: options.shownAfter,
    filesShown: options.filesShown,
  });
  if (sections.every((section) => section.items.length === 0)) return undefined;
  const groups = new Set(sections.flatMap((section) => section.items.map((entry) => entry.group ?? '')));
  const fixed =
    counter.countText(head) +
    sections.reduce((sum, section) => sum + counter.countText(section.title) + 2, 0) +
    [...groups].reduce((sum, group) => sum + counter.countText(group) + 1, 0);
  // Instructions kept whole are paid for apart from the budget.
  const budget = maxTokens + instructionTokens;
  const drop = ([sectionIndex, itemIndex]: Droppable) => {
    sections[sectionIndex]!.items[itemIndex]!.kept = false;
    sections[sectionIndex]!.dropped++;
  };
  let next = firstKept(sections, dropOrder, budget - fixed - NOTE_TOKENS, counter);
  for (let index = 0; index < next; index++) drop(dropOrder[index]!);
  // The estimate misses how lines join: check the text itself and drop more while it is over.
  let text = formatLedger(sections, head, historyId);
  while (next < dropOrder.length && counter.countText(text) > budget) {
    drop(dropOrder[next++]!);
    text = formatLedger(sections, head, historyId);
  }
  return text;
}

/**
 * How many items of `dropOrder` go (its oldest first) so that what stays fits in `room`: the
 * longest tail of it that fits beside the items never dropped. Counted from the tail, so a long
 * session's ledger (thousands of files read) counts the lines it shows, not every line it holds.
 */
function firstKept(
  sections: readonly LedgerSection[],
  dropOrder: readonly Droppable[],
  room: number,
  counter: TokenCounter,
): number {
  const itemOf = ([section, item]: Droppable) => sections[section]!.items[item]!;
  const cost = (item: LedgerItem) => counter.countText(item.text) + 1;
  const droppable = new Set(dropOrder.map(itemOf));
  let used = 0;
  for (const section of sections)
    for (const item of section.items) if (!droppable.has(item)) used += cost(item);
  for (let index = dropOrder.length - 1; index >= 0; index--) {
    used += cost(itemOf(dropOrder[index]!));
    if (used > room) return index + 1;
  }
  return 0;
}

function formatLedger(
  sections: readonly LedgerSection[],
  head: string,
  historyId: string | undefined,
): string {
  const recall = historyId ? `; recall ${historyId}` : '';
  const body = sections
    .filter((section) => section.items.length > 0)
    .map((section) => {
      const note = section.dropped > 0 ? [`- (${section.dropped} earlier not shown${recall})`] : [];
      return [`## ${section.title}`, ...note, ...sectionLines(section)].join('\n');
    })
    .join('\n');
  return `${ledgerOpen}>\n${head}\n${escapeReservedTags(body)}\n</session_ledger>`;
}
