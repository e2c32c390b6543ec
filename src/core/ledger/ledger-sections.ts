import { commonDirectory } from '../_internal/common-directory.js';
import { shortenLine, shortenMiddle, sliceHead, sliceTail } from '../_internal/text.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import type { LedgerCommand, LedgerFile, LedgerState } from './ledger-state.js';

/**
 * A user message is kept whole up to this many characters (instructions are what users complain
 * compaction loses); a longer one is a paste, cut with the whole of it in the archive.
 */
const USER_MESSAGE_CHARS = 2400;
/** What is kept of a long paste, or of an instruction over its budget: the line that says what it is. */
const PASTE_CHARS = 160;
/** Recent commands are shown whole up to this many characters: enough for the agent to re-run one. */
const COMMAND_CHARS = 300;
/**
 * Older commands are shown to this many characters, their start and their end (the file a `sed -n`
 * or a `cat` read; `shortenMiddle`): enough to recognise one, so more of them fit.
 */
const OLDER_COMMAND_CHARS = 100;
/** How many of the latest distinct commands are shown whole (the ones an agent runs again). */
const WHOLE_COMMANDS = 12;
/**
 * Error lines are shown to this many characters: the first line says what failed (and is what
 * `survival` reads, to 60), the rest of the output is in the archive.
 */
const ERROR_CHARS = 120;
/** Plan items are verbatim up to this many characters each. */
const PLAN_ITEM_CHARS = 300;
/**
 * What Claude Code puts in the user's turn when it loads instructions: a skill, or the plan the user
 * approved to implement. They say how to go on (Claude Code attaches its invoked skills again after
 * its own compaction), so the newest are kept whole while `instructionBudget` lasts.
 */
const instructionPrefixes = ['Base directory for this skill:', 'Implement the following plan:'];

/** Stands for a user message the compacted context repeats whole after the ledger. */
const repeatedNote = '(the latest request, repeated verbatim below)';

/** One fact of a section: a line of its own, or a name joined with others of its `group`. */
export interface LedgerItem {
  text: string;
  /** Files: the directory they are listed under (items of one group share a line). */
  group?: string;
  kept: boolean;
}

export interface LedgerSection {
  title: string;
  items: LedgerItem[];
  /** How many items were dropped to fit. */
  dropped: number;
}

/** An item that may be dropped to fit: section and item index. */
export type Droppable = [section: number, item: number];

export interface SectionOptions {
  counter: TokenCounter;
  /** The archive id holding a tool call's result, when it has one of its own. */
  recallOf?: ((toolUseId: string) => string | undefined) | undefined;
  /** Tokens the newest instructions may take whole, on top of the ledger's budget. */
  instructionBudget: number;
  /** User texts the compacted context repeats verbatim after the ledger: named, not repeated. */
  shownAfter?: ReadonlySet<string> | undefined;
  /** Files the working set beside the ledger shows by path: not listed again. */
  filesShown?: ReadonlySet<string> | undefined;
}

const item = (text: string, group?: string): LedgerItem =>
  group === undefined ? { text, kept: true } : { text, group, kept: true };

/**
 * The sections in display order, and which items go first when over budget: successful commands,
 * files read, failed commands, errors, user messages (never the first, nor an instruction kept
 * whole), files changed; the plan always stays.
 */
export function ledgerSections(
  state: LedgerState,
  options: SectionOptions,
): { sections: LedgerSection[]; dropOrder: Droppable[]; instructionTokens: number } {
  const recall = (id: string) => {
    const archived = options.recallOf?.(id);
    return archived ? ` ${archived}` : '';
  };
  const plan = state.plan;
  const listed = state.files.filter((file) => !options.filesShown?.has(file.path));
  // The root of the files listed here: the working set's files are not, and may lie elsewhere.
  const root = commonDirectory(listed.map((file) => file.path));
  const changed = listed.filter((file) => file.changed);
  const fileItem = (file: LedgerFile) => {
    // Edits are the rule: only another kind of change is named.
    const action =
      file.changed && file.action !== 'edit' && file.action !== 'read' ? ` (${file.action})` : '';
    const path = file.path.slice(root.length);
    const slash = path.lastIndexOf('/');
    return item(`${path.slice(slash + 1)}${action}${recall(file.toolUseId)}`, path.slice(0, slash + 1));
  };
  const whole = wholeInstructions(state, options);
  const users = state.userMessages.map((message, index) =>
    item(
      `t${message.turn}: ${
        options.shownAfter?.has(message.text) ? repeatedNote : (whole.get(index) ?? userLine(message.text))
      }`,
    ),
  );
  const commands = commandItems(state.commands, recall);
  const sections: LedgerSection[] = [
    {
      title: plan ? `Plan in force (${plan.tool}, t${plan.turn}, verbatim)` : 'Plan',
      items: plan ? plan.items.map((entry) => item(shortenLine(entry, PLAN_ITEM_CHARS))) : [],
      dropped: 0,
    },
    { title: 'Messages the user typed (verbatim)', items: users, dropped: 0 },
    {
      title: `Files changed${root ? ` (under ${root})` : ''}`,
      items: changed.map(fileItem),
      dropped: 0,
    },
    {
      // "Same root" only when the section above, which names it, is shown.
      title: `Files read${root ? (changed.length > 0 ? ' (same root)' : ` (under ${root})`) : ''}`,
      items: listed.filter((file) => !file.changed).map(fileItem),
      dropped: 0,
    },
    { title: 'Commands (exit status: first error line)', items: commands.items, dropped: 0 },
    {
      title: 'Errors of other tools',
      items: state.errors.map((error) =>
        item(
          `t${error.turn} ${[...(error.others ?? []), error.call].join(', ')}: ${shortenLine(error.line, ERROR_CHARS)}`,
        ),
      ),
      dropped: 0,
    },
  ];
  const dropOrder = dropOrderOf(sections, commands.failed, whole);
  return { sections, dropOrder, instructionTokens: options.instructionBudget - whole.left };
}

/**
 * Which items go first when over budget, by section (as `ledgerSections` lists them): successful
 * commands, files read, failed commands, errors, the latest commands, user messages (never the
 * first, nor one in `whole`), files changed. The plan is not in it: it always stays.
 */
function dropOrderOf(
  sections: readonly LedgerSection[],
  failed: readonly boolean[],
  whole: ReadonlyMap<number, string>,
): Droppable[] {
  const all = (section: number, from = 0, keep: (index: number) => boolean = () => true) =>
    sections[section]!.items.flatMap((_, index) =>
      index >= from && keep(index) ? [[section, index] as Droppable] : [],
    );
  // The latest commands (shown whole: the ones an agent runs again) go after the older failures.
  const recent = (index: number) => index >= failed.length - WHOLE_COMMANDS;
  return [
    ...all(4, 0, (index) => !failed[index] && !recent(index)),
    ...all(3),
    ...all(4, 0, (index) => failed[index]! && !recent(index)),
    ...all(5),
    ...all(4, 0, recent),
    ...all(1, 1, (index) => !whole.has(index)),
    ...all(2),
  ];
}

/**
 * Commands as items, one per line shown: runs whose line reads the same (same first characters,
 * same outcome) are one item at the latest run's place, their runs added up.
 */
function commandItems(
  commands: readonly LedgerCommand[],
  recall: (id: string) => string,
): { items: LedgerItem[]; failed: boolean[] } {
  const merged = new Map<string, { entry: LedgerCommand; runs: number }>();
  for (let index = commands.length - 1; index >= 0; index--) {
    const entry = commands[index]!;
    const key = `${shortenLine(entry.command, COMMAND_CHARS + 1)}\u0000${commandStatus(entry)}`;
    const seen = merged.get(key);
    if (seen) seen.runs += entry.runs;
    else merged.set(key, { entry, runs: entry.runs });
  }
  const ordered = [...merged.values()].reverse();
  const firstWhole = ordered.length - WHOLE_COMMANDS;
  return {
    items: ordered.map(({ entry, runs }, index) =>
      item(commandLine(entry, runs, recall, index >= firstWhole ? COMMAND_CHARS : OLDER_COMMAND_CHARS)),
    ),
    failed: ordered.map(({ entry }) => entry.failed),
  };
}

/** A command with its runs and how it ended; a failed one names where its output is. */
function commandLine(
  entry: LedgerCommand,
  runs: number,
  recall: (id: string) => string,
  chars: number,
): string {
  const times = runs > 1 ? ` ×${runs}` : '';
  const where = entry.failed ? recall(entry.toolUseId) : '';
  return `${shortenMiddle(entry.command, chars + 1)}${times}${commandStatus(entry)}${where}`;
}

/**
 * How a command ended, shortest first: nothing for a clean run, the error line alone when it
 * already states the exit code (Claude Code's `Exit code N`), else the code and the line.
 */
function commandStatus(entry: LedgerCommand): string {
  const error = entry.errorLine ? shortenLine(entry.errorLine, ERROR_CHARS) : undefined;
  if (entry.exitCode === 0 && !entry.failed) return '';
  if (error && entry.exitCode !== undefined && error.toLowerCase().startsWith(`exit code ${entry.exitCode}`))
    return ` → ${error}`;
  const status = entry.exitCode !== undefined ? ` → exit ${entry.exitCode}` : entry.failed ? ' → failed' : '';
  return `${status}${error ? `: ${error}` : ''}`;
}

/**
 * The user messages kept whole beyond {@link USER_MESSAGE_CHARS}, by index, with the text shown:
 * first the task (the first message the user typed: what the agent works on, often a pasted issue
 * with the harness's instructions, how to submit among them), cut to its head and tail when it
 * alone is over `instructionBudget` tokens; then the instructions, newest first, each text once,
 * while they fit (one that does not is shown by its first line).
 */
function wholeInstructions(
  state: LedgerState,
  options: SectionOptions,
): Map<number, string> & { left: number } {
  const whole = Object.assign(new Map<number, string>(), { left: options.instructionBudget });
  const kept = new Set<string>();
  const task = state.userMessages[0]?.text;
  if (task !== undefined && task.length > USER_MESSAGE_CHARS && !options.shownAfter?.has(task)) {
    const tokens = options.counter.countText(task);
    const shown = tokens <= whole.left ? task.trim() : headAndTail(task, (task.length * whole.left) / tokens);
    whole.set(0, shown);
    kept.add(task);
    whole.left -= Math.min(tokens, options.counter.countText(shown));
  }
  for (let index = state.userMessages.length - 1; index >= 0; index--) {
    const { text } = state.userMessages[index]!;
    if (!isInstruction(text) || kept.has(text) || options.shownAfter?.has(text)) continue;
    const tokens = options.counter.countText(text);
    if (tokens > whole.left) continue;
    whole.set(index, text.trim());
    kept.add(text);
    whole.left -= tokens;
  }
  return whole;
}

/** The first two thirds and the last third of `max` characters of `text`, saying what is left out. */
function headAndTail(text: string, max: number): string {
  const trimmed = text.trim();
  const head = Math.floor((Math.max(max, PASTE_CHARS) * 2) / 3);
  const tail = Math.floor(Math.max(max, PASTE_CHARS) / 3);
  const left = trimmed.length - head - tail;
  return `${sliceHead(trimmed, head)}\n[… ${left} characters of the task not shown …]\n${sliceTail(trimmed, trimmed.length - tail)}`;
}

function isInstruction(text: string): boolean {
  const trimmed = text.trimStart();
  return instructionPrefixes.some((prefix) => trimmed.startsWith(prefix));
}

/** A typed message whole; an instruction not kept whole or an over-long paste by its first line. */
function userLine(text: string): string {
  const cut = isInstruction(text) || text.length > USER_MESSAGE_CHARS;
  return shortenLine(text, cut ? PASTE_CHARS : USER_MESSAGE_CHARS);
}

/** The text lines of a section's kept items: files one line per directory. */
export function sectionLines(section: LedgerSection): string[] {
  const kept = section.items.filter((entry) => entry.kept);
  if (!kept.some((entry) => entry.group !== undefined)) return kept.map((entry) => `- ${entry.text}`);
  const groups = new Map<string, string[]>();
  for (const entry of kept) {
    const group = entry.group ?? '';
    const names = groups.get(group);
    if (names) names.push(entry.text);
    else groups.set(group, [entry.text]);
  }
  return [...groups].map(([group, names]) => `- ${group ? `${group} ` : ''}${names.join(', ')}`);
}
