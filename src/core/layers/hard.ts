import { archiveKey } from '../_internal/archive-ids.js';
import { escapeReservedTags } from '../_internal/text.js';
import type { ArchiveItem } from '../archive/archive-store.js';
import type { CompactionEvent } from '../events.js';
import type { LedgerFile } from '../ledger/ledger-state.js';
import {
  type ContentBlock,
  contentBlocks,
  type Message,
  type SystemPrompt,
  type TextBlock,
} from '../model/messages.js';
import { historyForSummarizer } from '../summary/readable-history.js';
import { bridgeText, summaryAcknowledgement } from '../summary/summary-format.js';
import { type SummarySettings, writeSummary } from '../summary/write-summary.js';
import { countMessagesTokens } from '../tokens/message-tokens.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { RenderedWorkingSet } from '../working-set/render-working-set.js';
import { type FileBack, type FilesBackSettings, filesBack } from './hard-files-back.js';
import { fitKeptTurn } from './hard-kept-turn.js';
import { humanRequestIn } from './human-request.js';
import type { LayerPlan, MaskRule, RewriteContext } from './mask.js';

/** Files back take at most this share of what is left under the hard threshold: the agent needs room to go on. */
const FILES_BACK_ROOM_SHARE = 1 / 2;

/** Resolved options of the hard layer. */
export interface HardSettings extends SummarySettings {
  /** The `<identity>` reminder placed after the summary. */
  identity: string;
  /** The session ledger's budget in tokens. */
  ledgerTokens: number;
  /** The working set's budget in tokens (0: left out). */
  workingSetTokens: number;
  /** The kept turn goes out whole up to this many tokens; a larger one has its large parts cut (Infinity: never). */
  keptTurnTokens: number;
  /** What goes back after the summary: the current text of the files the agent works on (see `filesBack`). */
  filesBack: FilesBackSettings;
}

/** The session ledger as the hard layer sees it. */
export interface HardLedger {
  /**
   * The ledger as text within the budget, and within `maxTokens` when given; `historyId` is where
   * the summarized history is archived; user texts in `shownAfter` are repeated verbatim after it;
   * files in `filesShown` are shown by the working set, not listed again.
   */
  render(
    historyId: string,
    maxTokens?: number,
    shownAfter?: ReadonlySet<string>,
    filesShown?: ReadonlySet<string>,
  ): string | undefined;
  /** Files read or changed, least recently touched first. */
  files: readonly LedgerFile[];
}

/** Everything the hard layer needs besides the messages. */
export interface HardContext {
  settings: HardSettings;
  counter: TokenCounter;
  system?: SystemPrompt;
  focus?: string;
  signal?: AbortSignal;
  rewrite: RewriteContext;
  /** Which tool results of the kept turn may be masked when it alone is too large. */
  rule: MaskRule;
  /** Local tokens of a request with these messages (system prompt and tools included). */
  countTokens(messages: readonly Message[]): number;
  /** When the result is still larger than this, the kept turn's tool results are masked too. */
  maxTokens: number;
  /** The session ledger; without it the summary goes out alone. */
  ledger?: HardLedger;
  /**
   * The working set within its budget and the files it shows (see `renderWorkingSet`); `shown`
   * is the text of files going back beside it, by path, which it does not repeat.
   */
  workingSet?: (shown?: ReadonlyMap<string, string>) => RenderedWorkingSet | undefined;
}

/** What the hard layer would change, with the events its summary calls produced. */
export interface HardPlan extends LayerPlan {
  events: CompactionEvent[];
}

/** How a history splits for a hard compaction. */
export interface HardSplit {
  /** What the summary replaces. */
  dropped: Message[];
  /** The most recent turn, kept verbatim. */
  tail: Message[];
  /** The latest human request (blocks other than tool results), unless the tail already holds it. */
  latestRequest: ContentBlock[] | undefined;
  /** True when the latest human request is inside the tail's tool-result message. */
  requestInTail: boolean;
}

/** Splits a history into what the summary replaces and the most recent turn kept verbatim. */
export function splitForHard(messages: readonly Message[]): HardSplit {
  const last = messages.length - 1;
  let tailStart = last;
  const answersTools = (message: Message | undefined) =>
    Array.isArray(message?.content) && message.content.some((block) => block.type === 'tool_result');
  if (messages[last]?.role === 'assistant' && messages[last - 1]?.role === 'user') {
    // A history ending with an assistant message (a prefill) keeps the turn before it too.
    tailStart = answersTools(messages[last - 1]) ? last - 2 : last - 1;
  } else if (answersTools(messages[last])) {
    tailStart = last - 1;
  }
  // The kept turn must hold the tool_use of every tool_result in it.
  while (tailStart > 0 && hasOrphanResult(messages.slice(tailStart))) tailStart--;
  tailStart = Math.max(0, tailStart);
  const dropped = messages.slice(0, tailStart);
  const tail = messages.slice(tailStart);

  let latestRequest: ContentBlock[] | undefined;
  let requestInTail = false;
  for (let index = last; index >= 0; index--) {
    const human = humanRequestIn(messages[index]!);
    if (human === undefined) continue;
    if (human === 'summary') break;
    if (index >= tailStart) {
      requestInTail = tail[0]?.role === 'assistant';
    } else {
      latestRequest = human;
    }
    break;
  }
  return { dropped, tail, latestRequest, requestInTail };
}

function hasOrphanResult(tail: readonly Message[]): boolean {
  const ids = new Set<string>();
  for (const message of tail) {
    if (typeof message.content === 'string') continue;
    for (const block of message.content) {
      if (block.type === 'tool_use') ids.add(String(block.id));
      else if (block.type === 'tool_result' && !ids.has(String(block.tool_use_id))) return true;
    }
  }
  return false;
}

/**
 * Layer 3: has the summary model write a dense summary of the history in fixed sections (see
 * `writeSummary`) and returns a small valid history: `<context_summary>` + `<identity>` (user), the
 * acknowledgement (assistant), the latest human request verbatim (user), then the most recent turn
 * verbatim, with the dropped history as the one archive item. When that is still over
 * `maxTokens`, the kept turn's tool results become placeholders too. Returns undefined when there
 * is nothing before the kept turn; a plan that frees nothing (`freedTokens <= 0`) must be dropped.
 */
export async function planHard(
  messages: readonly Message[],
  context: HardContext,
): Promise<HardPlan | undefined> {
  const split = splitForHard(messages);
  if (split.dropped.length === 0) return undefined;
  const { id: archiveId, known } = context.rewrite.ids.idFor(
    archiveKey('messages', undefined, JSON.stringify(split.dropped)),
  );
  const shownAfter = textsShownAfter(split);
  const rendered = context.workingSet?.();
  const workingSet = rendered?.text;
  const ledger = context.ledger?.render(archiveId, undefined, shownAfter, rendered?.files);
  // Both records are ground truth for a model summarizer: it must not contradict them. Without
  // the ledger the summary keeps the facts itself (the extractive model writes them only then).
  const groundTruth = ledger && workingSet ? `${ledger}\n\n${workingSet}` : ledger;
  // Nothing signed or encrypted leaves for another model; the agent's own model gets it all.
  const summary = await writeSummary(historyForSummarizer(split.dropped, context.settings.summarizer), {
    settings: context.settings,
    counter: context.counter,
    ...(context.system === undefined ? {} : { system: context.system }),
    ...(context.focus ? { focus: context.focus } : {}),
    ...(context.signal ? { signal: context.signal } : {}),
    ...(groundTruth ? { ledger: groundTruth } : {}),
    recall: context.rewrite.recall,
  });
  const head = { archiveId, known, summaryText: summary.text, workingSet };
  let plan = assembleHard(messages, split, head, ledger, context);
  // A history made mostly of the user's own long messages would not shrink with all of them in the
  // record: then the record gets at most a quarter of what it replaces.
  if (plan.freedTokens <= 0 && ledger && context.ledger) {
    const replaced = countMessagesTokens(split.dropped, context.counter);
    plan = assembleHard(
      messages,
      split,
      head,
      context.ledger.render(archiveId, Math.floor(replaced / 4), shownAfter, rendered?.files),
      context,
    );
  }
  return { ...plan, events: summary.events };
}

/** True when the kept turn does not start with a user message: the latest request (or a bridge) goes first. */
function needsBridge(split: HardSplit): boolean {
  const tailIsHumanRequest = split.tail.length === 1 && split.tail[0]!.role === 'user';
  return !tailIsHumanRequest && split.tail[0]?.role !== 'user';
}

/** The user texts the hard output repeats verbatim after its head: the latest request and the kept turn's. */
function textsShownAfter(split: HardSplit): Set<string> {
  const bridged =
    needsBridge(split) && split.latestRequest && !split.requestInTail ? split.latestRequest : [];
  const blocks = [
    ...bridged,
    ...split.tail.flatMap((message) => (message.role === 'user' ? contentBlocks(message) : [])),
  ];
  return new Set(
    blocks.flatMap((block) => (block.type === 'text' ? [String((block as TextBlock).text)] : [])),
  );
}

/** The hard output around a written summary: head (summary, ledger, identity), bridge, kept turn. */
function assembleHard(
  messages: readonly Message[],
  split: ReturnType<typeof splitForHard>,
  {
    archiveId,
    known,
    summaryText,
    workingSet,
  }: { archiveId: string; known: boolean; summaryText: string; workingSet: string | undefined },
  ledger: string | undefined,
  context: HardContext,
): Omit<HardPlan, 'events'> {
  const bridge = needsBridge(split);
  let text = headText({ archiveId, summaryText, workingSet }, ledger, context);
  let output = hardOutput(split, text, bridge);
  const files = chooseFilesBack(output, messages, context);
  if (files.length > 0 && context.workingSet) {
    // The files going back hold some of what the working set showed: it shows the rest instead.
    const beside = context.workingSet(new Map(files.map((file) => [file.path, file.block])))?.text;
    text = headText({ archiveId, summaryText, workingSet: beside }, ledger, context);
    output = hardOutput(split, text, bridge);
  }
  output = withFiles(output, files);
  const item: ArchiveItem = {
    id: archiveId,
    sessionId: context.rewrite.sessionId,
    kind: 'messages',
    createdAt: context.rewrite.now,
    messages: split.dropped,
    headLength: bridge ? 3 : 2,
    placeholder: text,
  };
  const fitted = fitKeptTurn(output, split.tail.length, {
    ...context,
    keptTurnTokens: context.settings.keptTurnTokens,
  });
  return {
    messages: fitted.messages,
    // Already archived (a retry after a crash): the stored item stands, written once.
    items: known ? fitted.items : [item, ...fitted.items],
    freedTokens: context.countTokens(messages) - context.countTokens(fitted.messages),
  };
}

/**
 * The head's text: the summary (naming its archive id only for a model that can recall it), the
 * ledger (the compactor's record, outside the summarizer's narrative), the working set, identity.
 */
function headText(
  {
    archiveId,
    summaryText,
    workingSet,
  }: { archiveId: string; summaryText: string; workingSet: string | undefined },
  ledger: string | undefined,
  context: HardContext,
): string {
  const open = context.rewrite.recall ? `<context_summary recall="${archiveId}">` : '<context_summary>';
  return (
    `${open}\n${summaryText}\n</context_summary>\n\n` +
    (ledger ? `${ledger}\n\n` : '') +
    (workingSet ? `${workingSet}\n\n` : '') +
    `<identity>\n${escapeReservedTags(context.settings.identity)}\n</identity>`
  );
}

/** The hard output: head, acknowledgement, the latest request (or a bridge) when needed, kept turn. */
function hardOutput(split: HardSplit, text: string, bridge: boolean): Message[] {
  const output: Message[] = [
    { role: 'user', content: [{ type: 'text', text }] },
    { role: 'assistant', content: [{ type: 'text', text: summaryAcknowledgement }] },
  ];
  if (bridge) {
    const request = split.latestRequest && !split.requestInTail ? split.latestRequest : undefined;
    output.push({ role: 'user', content: request ?? [{ type: 'text', text: bridgeText }] });
  }
  output.push(...split.tail);
  return output;
}

/**
 * The files back, within their budget and within half of what is left under `maxTokens` after
 * `output`: files back never push the kept turn into placeholders, nor the next requests straight
 * back over the threshold.
 */
function chooseFilesBack(
  output: readonly Message[],
  messages: readonly Message[],
  context: HardContext,
): FileBack[] {
  const { maxFiles, maxTokens } = context.settings.filesBack;
  const left = context.maxTokens - context.countTokens(output);
  const room = Math.min(maxTokens, Math.floor(left * FILES_BACK_ROOM_SHARE));
  // After the head: the acknowledgement, the latest request (or the bridge), the kept turn.
  return filesBack(messages, output.slice(1), { maxFiles, maxTokens: room }, context.counter);
}

/** The output with the files' blocks after the head's text. */
function withFiles(output: Message[], files: readonly FileBack[]): Message[] {
  if (files.length === 0) return output;
  const [head, ...rest] = output;
  const blocks: TextBlock[] = files.map((file) => ({ type: 'text', text: file.block }));
  return [{ ...head!, content: [...contentBlocks(head!), ...blocks] }, ...rest];
}
