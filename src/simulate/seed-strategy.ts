/**
 * A faithful port of the three-layer sketch in the seed document (`SEED.md`, section 6), kept naive
 * on purpose so `simulate` can show what the project improves on. Where the sketch is silent the
 * port takes the simplest reading and says so:
 *
 * - Counting is the sketch's `len(json.dumps(messages)) // 4` over the messages only (the sketch
 *   never counts the system prompt). JavaScript's `JSON.stringify` is used; Python's `json.dumps`
 *   adds a space after `,` and `:` and escapes non-ASCII, so it reads a few percent higher.
 * - The layer is chosen on the count of the incoming messages, exactly as `maybe_compact` does:
 *   over `hard` → hard, over `mid` → mid, otherwise micro. Micro does not run before mid or hard.
 * - Micro: every user message with list content whose age (`messages.length - index`) is above 6
 *   has each `tool_result` replaced by `{ type, tool_use_id, content: "[Previous: used NAME]" }`
 *   (other fields such as `is_error` are dropped, as the sketch builds a new dict). The sketch reads
 *   the name from a private `_tool_name` field on the block; the port takes it from the matching
 *   `tool_use` and falls back to the sketch's `tool`.
 * - Mid (the sketch describes it but never defines it): the system prompt is untouched (it is not
 *   part of `messages`), the last 5 `tool_result` blocks stay whole, every older one gets the micro
 *   placeholder, and the text of every assistant message older than the turn that asked for the
 *   oldest kept result is cut to its first sentence. User text and `tool_use` blocks stay as they
 *   are, so the pairing stays valid. No model call.
 * - Hard: the whole history plus the sketch's summary prompt goes to the summary model (2,000
 *   output tokens at most); the history becomes the `<context_summary>` user message and the
 *   assistant's "Understood. Continuing from the summary." The result ends with an assistant
 *   message, as in the sketch; no `<identity>` reminder (the diagram mentions one, the code has none).
 */

import type {
  CompactionLayer,
  ContentBlock,
  Message,
  SummaryModel,
  SystemPrompt,
  ToolResultBlock,
} from 'agent-compact';

/** The sketch's summary prompt, word for word. */
export const seedSummaryPrompt =
  'Summarize the conversation so far. Include: what the user asked, what tools you used, what you found, ' +
  "what's left to do. Be dense.";

/** The assistant acknowledgement the sketch puts after the summary. */
export const seedAcknowledgement = 'Understood. Continuing from the summary.';

/** The sketch's micro placeholder for a tool result. */
export function seedPlaceholder(toolName: string): string {
  return `[Previous: used ${toolName}]`;
}

/** The sketch's token estimate: `len(json.dumps(messages)) // 4`, over the messages only. */
export function seedCountTokens(messages: readonly Message[]): number {
  return Math.floor(JSON.stringify(messages).length / 4);
}

/** Maps every `tool_use` id in the messages to its tool name. */
function toolNamesById(messages: readonly Message[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of messages) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const block of message.content) {
      if (block.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string') {
        names.set(block.id, block.name);
      }
    }
  }
  return names;
}

function placeholderBlock(block: ToolResultBlock, names: ReadonlyMap<string, string>): ToolResultBlock {
  return {
    type: 'tool_result',
    tool_use_id: block.tool_use_id,
    content: seedPlaceholder(names.get(block.tool_use_id) ?? 'tool'),
  };
}

function isPlaceholdered(block: ToolResultBlock, names: ReadonlyMap<string, string>): boolean {
  return (
    block.content === seedPlaceholder(names.get(block.tool_use_id) ?? 'tool') &&
    Object.keys(block).length === 3
  );
}

/**
 * The sketch's `micro_compact`: tool results in user messages older than 6 messages become
 * `[Previous: used NAME]`. Returns new arrays; the input is not changed.
 */
export function seedMicroCompact(messages: readonly Message[]): Message[] {
  const names = toolNamesById(messages);
  return messages.map((message, index) => {
    const age = messages.length - index;
    if (message.role !== 'user' || typeof message.content === 'string' || age <= 6) return message;
    return {
      ...message,
      content: message.content.map((block) =>
        block.type === 'tool_result' ? placeholderBlock(block as ToolResultBlock, names) : block,
      ),
    };
  });
}

/** The first sentence of a text (up to 200 characters), or the text when it is already short. */
export function firstSentence(text: string): string {
  const trimmed = text.trim();
  const match = /^[\s\S]*?[.!?](?=\s|$)/.exec(trimmed);
  const sentence = match ? match[0] : trimmed;
  if (sentence.length <= 200) return sentence === trimmed ? trimmed : `${sentence} …`;
  return `${sentence.slice(0, 200)}…`;
}

/**
 * The port's reading of the sketch's `mid_compact` (see the module comment): the last
 * `keepToolResults` tool results stay whole, older ones get the micro placeholder, and older
 * assistant text is cut to its first sentence.
 */
export function seedMidCompact(messages: readonly Message[], keepToolResults = 5): Message[] {
  const names = toolNamesById(messages);
  // Positions of every tool_result, oldest first; the last `keepToolResults` stay whole.
  const positions: Array<{ messageIndex: number; blockIndex: number }> = [];
  messages.forEach((message, messageIndex) => {
    if (message.role !== 'user' || typeof message.content === 'string') return;
    message.content.forEach((block, blockIndex) => {
      if (block.type === 'tool_result') positions.push({ messageIndex, blockIndex });
    });
  });
  const kept = new Set(
    positions
      .slice(Math.max(0, positions.length - keepToolResults))
      .map((p) => `${p.messageIndex}:${p.blockIndex}`),
  );
  const oldestKept = positions[Math.max(0, positions.length - keepToolResults)];
  // Assistant messages from the one that asked for the oldest kept result on stay whole.
  const recentFrom = oldestKept ? oldestKept.messageIndex - 1 : messages.length;
  return messages.map((message, messageIndex) => {
    if (typeof message.content === 'string') {
      if (message.role === 'assistant' && messageIndex < recentFrom) {
        return { ...message, content: firstSentence(message.content) };
      }
      return message;
    }
    if (message.role === 'user') {
      if (!message.content.some((block) => block.type === 'tool_result')) return message;
      return {
        ...message,
        content: message.content.map((block, blockIndex) =>
          block.type === 'tool_result' && !kept.has(`${messageIndex}:${blockIndex}`)
            ? placeholderBlock(block as ToolResultBlock, names)
            : block,
        ),
      };
    }
    if (messageIndex >= recentFrom) return message;
    return {
      ...message,
      content: message.content.map(
        (block): ContentBlock =>
          block.type === 'text' && typeof block.text === 'string'
            ? { ...block, text: firstSentence(block.text) }
            : block,
      ),
    };
  });
}

/** Options of {@link seedHardCompact}. */
export interface SeedHardCompactOptions {
  /** The system prompt, sent to the summary model as the sketch does. */
  system?: SystemPrompt;
  /** Writes the summary (the sketch calls `client.messages.create`). */
  summarizer: SummaryModel;
  /** Aborts the summary call. */
  signal?: AbortSignal;
}

/**
 * The sketch's `hard_compact`: the whole history plus the summary prompt goes to the model, and
 * the history becomes the summary and the assistant's acknowledgement.
 */
export async function seedHardCompact(
  messages: readonly Message[],
  { system, summarizer, signal }: SeedHardCompactOptions,
): Promise<Message[]> {
  const { text } = await summarizer.summarize(
    {
      ...(system === undefined ? {} : { system }),
      messages: [...messages, { role: 'user', content: seedSummaryPrompt }],
      maxOutputTokens: 2000,
    },
    signal ? { signal } : undefined,
  );
  return [
    { role: 'user', content: `<context_summary>\n${text}\n</context_summary>` },
    { role: 'assistant', content: seedAcknowledgement },
  ];
}

/** Options of {@link createSeedStrategy}. */
export interface SeedStrategyOptions {
  /** Over this many tokens (the sketch's count) mid compaction runs. @default 50000 */
  midThreshold?: number;
  /** Over this many tokens hard compaction runs. @default 80000 */
  hardThreshold?: number;
  /** Writes the hard summary. */
  summarizer: SummaryModel;
}

/** What one call of the seed's `maybe_compact` did. */
export interface SeedCompactResult {
  messages: Message[];
  /** The layer that changed something; `none` when micro found nothing new to replace. */
  layer: CompactionLayer;
  /** The sketch's count of the incoming messages. */
  tokensBefore: number;
}

/** The seed's `maybe_compact` with its thresholds, as a stateless strategy. */
export interface SeedStrategy {
  readonly thresholds: { readonly mid: number; readonly hard: number };
  maybeCompact(
    messages: readonly Message[],
    options?: { system?: SystemPrompt; signal?: AbortSignal },
  ): Promise<SeedCompactResult>;
}

/**
 * The sketch's `maybe_compact` as a strategy: hard over `hardThreshold`, mid over `midThreshold`,
 * micro otherwise, chosen on the sketch's own count.
 *
 * @example
 * const seed = createSeedStrategy({ summarizer: createExtractiveSummaryModel() });
 * const { messages, layer } = await seed.maybeCompact(history, { system });
 */
export function createSeedStrategy({
  midThreshold = 50_000,
  hardThreshold = 80_000,
  summarizer,
}: SeedStrategyOptions): SeedStrategy {
  return {
    thresholds: { mid: midThreshold, hard: hardThreshold },
    async maybeCompact(messages, { system, signal } = {}) {
      const tokensBefore = seedCountTokens(messages);
      if (tokensBefore > hardThreshold) {
        const compacted = await seedHardCompact(messages, {
          summarizer,
          ...(system === undefined ? {} : { system }),
          ...(signal ? { signal } : {}),
        });
        return { messages: compacted, layer: 'hard', tokensBefore };
      }
      if (tokensBefore > midThreshold) {
        return { messages: seedMidCompact(messages), layer: 'mid', tokensBefore };
      }
      const compacted = seedMicroCompact(messages);
      return {
        messages: compacted,
        layer: microChanged(messages, compacted) ? 'micro' : 'none',
        tokensBefore,
      };
    },
  };
}

// Micro rebuilds old messages every call; it "fired" only when some result was not a placeholder yet.
function microChanged(before: readonly Message[], after: readonly Message[]): boolean {
  const names = toolNamesById(before);
  return before.some((message, index) => {
    if (message === after[index] || typeof message.content === 'string') return false;
    return message.content.some(
      (block) => block.type === 'tool_result' && !isPlaceholdered(block as ToolResultBlock, names),
    );
  });
}
