/**
 * A development look at the next-need probe at Claude Code's own compaction points in the shared
 * sessions (`node dist/bench/next-need-dev.js [dir] [--items]` after `npm run build`): for the items
 * agent-compact's hard compaction misses, where the history showed them last (a Read's output, a
 * grep, an edit's input, the agent's own text), and what the compacted context spends its tokens on
 * (each section of the summary, the ledger and the working set, and the kept turn). `--items` lists
 * the missed items point by point. The `survival` bench suite prints the shares themselves.
 */
import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Message, ToolUseBlock } from 'agent-compact';
import { createCompactor, createExtractiveSummaryModel } from 'agent-compact';
import { importTranscriptFile } from 'agent-compact/importers';
import { createTiktokenCounter } from 'agent-compact/tokenizer';
import { contentBlocks } from 'agent-compact/wire';
import { requestText } from '../simulate/key-facts.js';
import { createNextNeedProbe, hasWholeToken, type NextNeedItem } from '../simulate/next-need.js';

const counter = createTiktokenCounter();
const summarizer = createExtractiveSummaryModel();

/** A count keyed by a label, printed largest first. */
type Tally = Map<string, number>;

function add(tally: Tally, key: string, amount = 1): void {
  tally.set(key, (tally.get(key) ?? 0) + amount);
}

function printTally(title: string, tally: Tally, limit = 25): void {
  console.log(`\n${title}`);
  for (const [key, count] of [...tally].sort((left, right) => right[1] - left[1]).slice(0, limit))
    console.log(`  ${String(count).padStart(7)}  ${key}`);
}

/** The label of each block of a message: role, block type and, for tool blocks, the tool's name. */
function blockSources(
  message: Message,
  toolNames: Map<string, string>,
): Array<{ label: string; text: string }> {
  return contentBlocks(message).map((block) => {
    if (block.type === 'tool_use') toolNames.set(String(block.id), String(block.name));
    const tool =
      block.type === 'tool_use'
        ? `:${(block as ToolUseBlock).name}`
        : block.type === 'tool_result'
          ? `:${toolNames.get(String(block.tool_use_id)) ?? '?'}`
          : '';
    return {
      label: `${message.role} ${block.type}${tool}`,
      text: requestText(undefined, [{ ...message, content: [block] }]),
    };
  });
}

/** Where the history before `index` last showed the item (the label of the block). */
function lastSource(history: readonly Message[], item: NextNeedItem): string {
  const toolNames = new Map<string, string>();
  let found = 'nowhere (system prompt?)';
  for (const message of history) {
    for (const source of blockSources(message, toolNames)) {
      const shown =
        item.kind === 'edit-texts' || item.kind === 'commands'
          ? source.text.includes(item.text)
          : hasWholeToken(source.text, item.text);
      if (shown) found = source.label;
    }
  }
  return found;
}

/** The raw text of a message's text blocks. */
function rawText(message: Message | undefined): string {
  if (message === undefined) return '';
  if (typeof message.content === 'string') return message.content;
  return message.content.map((block) => (block.type === 'text' ? String(block.text) : '')).join('\n');
}

/** Tokens of each part of the compacted context: the summary's tagged sections and headings, the rest. */
function spend(context: readonly Message[], tally: Tally): void {
  const [first, ...rest] = context;
  let section = '(none)';
  let heading = '(head)';
  for (const line of rawText(first).split('\n')) {
    const tag = /^<(\w+)/.exec(line)?.[1];
    if (tag !== undefined && !line.startsWith('</')) [section, heading] = [tag, '(head)'];
    const title = /^## ([^(]*)/.exec(line)?.[1];
    if (title !== undefined) heading = title.trim().slice(0, 40);
    const tokens = counter.countText(`${line}\n`);
    add(tally, `${section} / ${heading}`, tokens);
    add(tally, `${section} (all)`, tokens);
  }
  add(tally, 'kept turn and after', counter.countText(requestText(undefined, rest)));
}

interface Totals {
  missed: Map<string, Tally>;
  spend: Tally;
  points: number;
}

async function measureFile(path: string, totals: Totals, listItems: boolean): Promise<void> {
  const transcript = await importTranscriptFile(path);
  const { messages, system } = transcript.conversation;
  const probe = createNextNeedProbe({ messages });
  for (const compaction of transcript.compactions ?? []) {
    const history = messages.slice(0, compaction.index);
    if (history.length === 0) continue;
    const result = await createCompactor({ counter, summarizer }).maybeCompact(history, {
      force: 'hard',
      ...(system === undefined ? {} : { system }),
    });
    totals.points++;
    spend(result.messages, totals.spend);
    const missed = probe
      .items(compaction.index, { messages: result.messages })
      .filter((item) => !item.visible);
    if (listItems) console.log(`\n# ${path}:${compaction.lineNumber}`);
    for (const item of missed) {
      const source = lastSource(history, item);
      if (!totals.missed.has(item.kind)) totals.missed.set(item.kind, new Map());
      add(totals.missed.get(item.kind)!, source);
      if (listItems) console.log(`  ${item.kind.padEnd(11)} ${source.padEnd(28)} ${item.text.slice(0, 100)}`);
    }
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const directory = resolve(
    args.find((arg) => !arg.startsWith('--')) ?? '../shared/data/sessions/claude-code-entireio-cli',
  );
  const totals: Totals = { missed: new Map(), spend: new Map(), points: 0 };
  for (const file of (await readdir(directory)).filter((name) => name.endsWith('.jsonl')).sort())
    await measureFile(join(directory, file), totals, args.includes('--items'));
  for (const [kind, tally] of totals.missed)
    printTally(`missed ${kind}: where the history showed it last`, tally);
  const perPoint = new Map(
    [...totals.spend].map(([key, tokens]) => [key, Math.round(tokens / totals.points)]),
  );
  printTally(
    `tokens per point (mean over ${totals.points} points) by part of the compacted context`,
    perPoint,
    40,
  );
}

await main();
