/**
 * A quick development measure of what survives a hard compaction at Claude Code's own compaction
 * points in the shared sessions (`node dist/bench/survival-dev.js [dir]` after `npm run build`).
 * The `survival` bench suite replaces it; the probes follow issue #18's table.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CompactorOptions, Message, ToolResultBlock, ToolUseBlock } from 'agent-compact';
import { createCompactor } from 'agent-compact';
import { claudeCodeFromLines } from 'agent-compact/internal';
import { createTiktokenCounter } from 'agent-compact/tokenizer';

const directory = process.argv[2] ?? '../shared/data/sessions/claude-code-entireio-cli';
const kinds = ['edited', 'read', 'commands', 'errors', 'todo', 'user'] as const;
type Kind = (typeof kinds)[number];
const counter = createTiktokenCounter();

function textOf(message: Message): string {
  if (typeof message.content === 'string') return message.content;
  return message.content
    .map((block) => {
      if (block.type === 'text') return String(block.text);
      if (block.type === 'tool_use') return JSON.stringify((block as ToolUseBlock).input);
      if (block.type === 'tool_result') {
        const content = (block as ToolResultBlock).content;
        if (typeof content === 'string') return content;
        return (content ?? []).map((part) => (part.type === 'text' ? String(part.text) : '')).join('\n');
      }
      return '';
    })
    .join('\n');
}

function facts(messages: readonly Message[]): Record<Kind, string[][]> {
  const out: Record<Kind, string[][]> = {
    edited: [],
    read: [],
    commands: [],
    errors: [],
    todo: [],
    user: [],
  };
  const uses = new Map<string, ToolUseBlock>();
  for (const message of messages) {
    if (typeof message.content === 'string') {
      if (message.role === 'user') out.user.push(words(message.content));
      continue;
    }
    for (const block of message.content) {
      if (block.type === 'tool_use') {
        const use = block as ToolUseBlock;
        uses.set(use.id, use);
        const input = (use.input ?? {}) as Record<string, unknown>;
        const base = typeof input.file_path === 'string' ? [input.file_path.split('/').pop()!] : undefined;
        if (['Edit', 'Write', 'MultiEdit'].includes(use.name) && base) out.edited.push(base);
        if (use.name === 'Read' && base) out.read.push(base);
        if (use.name === 'Bash' && typeof input.command === 'string')
          out.commands.push([input.command.split('\n')[0]!.slice(0, 60)]);
        if (use.name === 'TodoWrite' && Array.isArray(input.todos))
          out.todo = input.todos.map((todo) => [String((todo as { content: string }).content)]);
      } else if (block.type === 'tool_result') {
        const result = block as ToolResultBlock;
        if (result.is_error) {
          const text = textOf({ role: 'user', content: [result] });
          const first = text.split('\n').find((line) => line.trim() !== '');
          if (first) out.errors.push([first.trim()]);
        }
      } else if (block.type === 'text' && message.role === 'user') {
        out.user.push(words(String(block.text)));
      }
    }
  }
  return out;
}

function words(text: string): string[] {
  return ['\u0000words', ...new Set(text.split(/\s+/).filter((word) => word.length > 3))];
}

function visible(fact: string[], haystack: string): boolean {
  if (fact[0] === '\u0000words') {
    const list = fact.slice(1);
    if (list.length === 0) return true;
    return list.filter((word) => haystack.includes(word)).length / list.length >= 0.5;
  }
  return haystack.includes(fact[0]!);
}

async function main(): Promise<void> {
  const totals = Object.fromEntries(kinds.map((kind) => [kind, { visible: 0, total: 0 }])) as Record<
    Kind,
    { visible: number; total: number }
  >;
  const sizes: number[] = [];
  const theirs: number[] = [];
  const options: CompactorOptions = JSON.parse(process.env.COMPACTOR_OPTIONS ?? '{}');
  for (const name of readdirSync(directory).filter((file) => file.endsWith('.jsonl'))) {
    const lines = readFileSync(join(directory, name), 'utf8')
      .split('\n')
      .flatMap((line, index) => {
        try {
          return line.trim()
            ? [{ value: JSON.parse(line) as Record<string, unknown>, lineNumber: index + 1 }]
            : [];
        } catch {
          return [];
        }
      });
    for (const [position, line] of lines.entries()) {
      if (line.value.subtype !== 'compact_boundary') continue;
      const summary = lines.slice(position).find((next) => next.value.isCompactSummary === true);
      const message = summary?.value.message as Message | undefined;
      if (message) theirs.push(counter.countText(textOf(message)));
      let messages: Message[];
      try {
        messages = claudeCodeFromLines(lines.slice(0, position)).conversation.messages;
      } catch {
        continue;
      }
      if (messages.length < 4) continue;
      const result = await createCompactor(options).maybeCompact(messages, { force: 'hard' });
      const after = result.messages.map(textOf).join('\n');
      sizes.push(counter.countText(after));
      for (const [kind, list] of Object.entries(facts(messages)) as [Kind, string[][]][]) {
        const unique = new Map(list.map((fact) => [fact.join(' '), fact]));
        for (const fact of unique.values()) {
          totals[kind].total++;
          if (visible(fact, after)) totals[kind].visible++;
        }
      }
    }
  }
  const median = (list: number[]) => list.sort((a, b) => a - b)[Math.floor(list.length / 2)] ?? 0;
  for (const kind of kinds) {
    const { visible: seen, total } = totals[kind];
    console.log(
      `${kind.padEnd(9)} ${((100 * seen) / Math.max(1, total)).toFixed(1).padStart(5)}%  (${seen}/${total})`,
    );
  }
  console.log(
    `points ${sizes.length}; median tokens after ${median(sizes)}; Claude Code summary median ${median(theirs)}`,
  );
}

await main();
