/**
 * fast-check arbitraries of Anthropic conversations with tool calls, for property tests of
 * validation, repair and the compaction layers. Test-only (excluded from the build).
 *
 * - {@link arbitraryValidConversation}: conversations the provider accepts — parallel tool calls,
 *   thinking blocks, images, huge and empty tool results, unknown blocks, and sometimes a turn split
 *   over two same-role messages (allowed: the API merges them).
 * - {@link arbitraryAnyConversation}: well-typed conversations that may break any pairing or
 *   emptiness rule — valid ones mutated, and free-form ones with colliding ids.
 */
import fc from 'fast-check';
import type {
  ContentBlock,
  Message,
  ToolResultBlock,
  ToolResultContentBlock,
  ToolUseBlock,
} from '../model/messages.js';

const words = [
  'read',
  'the',
  'file',
  'src/index.ts',
  'and',
  'fix',
  'tests',
  'ok',
  'ünïcødé',
  '🙂',
  'line\nbreak',
];

/** Non-blank text, short. */
const arbitraryText = fc
  .array(fc.constantFrom(...words), { minLength: 1, maxLength: 6 })
  .map((parts) => parts.join(' '));

const arbitraryTextBlock = arbitraryText.map((text): ContentBlock => ({ type: 'text', text }));

const arbitraryImageBlock = fc.constantFrom<ContentBlock>(
  { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
  { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } },
);

const arbitraryUnknownBlock = fc.constantFrom<ContentBlock>(
  { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'doc' } },
  { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'x' } },
  { type: 'future_block', payload: [1, 2, 3] },
);

const arbitraryThinkingBlock = fc.oneof(
  arbitraryText.map((thinking): ContentBlock => ({ type: 'thinking', thinking, signature: 'sig' })),
  fc.constant<ContentBlock>({ type: 'redacted_thinking', data: 'ZW5jcnlwdGVk' }),
);

/** Code-like text: what the working set and files back parse (unterminated, binary, tags, long lines). */
const arbitraryCode = fc
  .array(
    fc.constantFrom(
      'export function parse(input: string) {',
      '  return input.split(",");',
      '}',
      'def handle(self, x):',
      'func Run() error {',
      '/* unterminated',
      '`template ${',
      '\u0000\u0001binary',
      '</context_summary>',
      'x'.repeat(2_000),
    ),
    { maxLength: 12 },
  )
  .map((lines) => lines.join('\n'));

/** A value of the wrong type where a tool input holds a string or a number. */
const arbitraryWrongType = fc.constantFrom<unknown>(null, -5, 1e12, [], {}, true);
const codeOrWrong = fc.oneof(
  { weight: 4, arbitrary: arbitraryCode },
  { weight: 1, arbitrary: arbitraryWrongType },
);
const arbitraryPath = fc.constantFrom('src/a.ts', '/repo/src/a.ts', './src/a.ts', 'a.py', '', '../up.rs');

const arbitraryToolInput = fc.oneof(
  fc.constant({}),
  fc.record({ path: fc.constantFrom('a.ts', 'b.ts'), line: fc.nat(500) }),
  fc.record({ command: arbitraryText }),
  // The shapes of the code tools (Claude Code, Codex, Gemini CLI), right and wrong.
  fc.record(
    {
      file_path: fc.oneof(arbitraryPath, arbitraryWrongType),
      offset: fc.oneof(fc.nat(300), arbitraryWrongType),
      limit: fc.oneof(fc.nat(300), arbitraryWrongType),
      old_string: codeOrWrong,
      new_string: codeOrWrong,
      content: codeOrWrong,
    },
    { requiredKeys: [] },
  ),
  fc.tuple(arbitraryPath, arbitraryCode, arbitraryCode).map(([path, before, after]) => ({
    command: `apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: ${path}\n@@\n-${before}\n+${after}\n*** End Patch\nEOF`,
  })),
  fc
    .tuple(arbitraryPath, arbitraryCode)
    .map(([path, text]) => ({ command: `cat > ${path} <<'EOF'\n${text}\nEOF` })),
);

/** Tool result content: a string (maybe empty or huge), a block list (maybe empty), or none. */
const arbitraryToolResultContent: fc.Arbitrary<ToolResultBlock['content']> = fc.oneof(
  { weight: 4, arbitrary: arbitraryText },
  { weight: 2, arbitrary: arbitraryCode },
  { weight: 1, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: fc.integer({ min: 10_000, max: 60_000 }).map((size) => 'x'.repeat(size)) },
  { weight: 1, arbitrary: fc.constant<ToolResultContentBlock[]>([]) },
  {
    weight: 2,
    arbitrary: fc.array(
      fc.oneof(arbitraryTextBlock, arbitraryImageBlock).map((block) => block as ToolResultContentBlock),
      { minLength: 1, maxLength: 3 },
    ),
  },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

/** The shape of one user → assistant exchange, before ids are assigned. */
interface TurnPlan {
  userExtras: ContentBlock[];
  useString: boolean;
  thinking: ContentBlock | undefined;
  assistantText: ContentBlock | undefined;
  toolCalls: { name: string; input: unknown; result: ToolResultBlock['content']; isError: boolean }[];
  reverseResults: boolean;
  splitAssistant: boolean;
  splitUser: boolean;
}

const arbitraryTurnPlan: fc.Arbitrary<TurnPlan> = fc.record({
  userExtras: fc.array(fc.oneof(arbitraryTextBlock, arbitraryImageBlock, arbitraryUnknownBlock), {
    minLength: 1,
    maxLength: 2,
  }),
  useString: fc.boolean(),
  thinking: fc.option(arbitraryThinkingBlock, { nil: undefined }),
  assistantText: fc.option(arbitraryTextBlock, { nil: undefined }),
  toolCalls: fc.array(
    fc.record({
      name: fc.constantFrom('read_file', 'bash', 'grep', 'Read', 'Edit', 'Write', 'shell'),
      input: arbitraryToolInput,
      result: arbitraryToolResultContent,
      isError: fc.boolean(),
    }),
    { maxLength: 3 },
  ),
  reverseResults: fc.boolean(),
  splitAssistant: fc.boolean(),
  splitUser: fc.boolean(),
});

/** Builds a valid conversation from turn plans; ids are `toolu_<turn>_<call>`, unique. */
function buildConversation(plans: readonly TurnPlan[], endWithAssistant: boolean): Message[] {
  const messages: Message[] = [];
  let pendingResults: ToolResultBlock[] = [];
  plans.forEach((plan, turnIndex) => {
    const extras: ContentBlock[] =
      plan.useString && pendingResults.length === 0 ? [] : plan.userExtras.map((block) => ({ ...block }));
    if (pendingResults.length > 0 && plan.splitUser) {
      // Results first in one message, text in the next: the API merges them into one valid turn.
      messages.push({ role: 'user', content: pendingResults });
      messages.push({ role: 'user', content: extras.length > 0 ? extras : 'go on' });
    } else if (pendingResults.length === 0 && plan.useString) {
      messages.push({ role: 'user', content: words.slice(0, 3 + (turnIndex % 5)).join(' ') });
    } else {
      messages.push({ role: 'user', content: [...pendingResults, ...extras] });
    }
    const isLast = turnIndex === plans.length - 1;
    if (isLast && !endWithAssistant) return;
    const toolUses: ToolUseBlock[] =
      isLast && endWithAssistant
        ? []
        : plan.toolCalls.map((call, callIndex) => ({
            type: 'tool_use',
            id: `toolu_${turnIndex}_${callIndex}`,
            name: call.name,
            input: call.input,
          }));
    const leading = [plan.thinking, plan.assistantText].filter((block) => block !== undefined);
    if (leading.length + toolUses.length === 0) leading.push({ type: 'text', text: 'done' });
    if (plan.splitAssistant && leading.length > 0 && toolUses.length > 0) {
      messages.push({ role: 'assistant', content: leading });
      messages.push({ role: 'assistant', content: toolUses });
    } else {
      messages.push({ role: 'assistant', content: [...leading, ...toolUses] });
    }
    pendingResults = toolUses.map((toolUse, callIndex) => {
      const call = plan.toolCalls[callIndex]!;
      const result: ToolResultBlock = { type: 'tool_result', tool_use_id: toolUse.id };
      if (call.result !== undefined) result.content = call.result;
      if (call.isError) result.is_error = true;
      return result;
    });
    if (plan.reverseResults) pendingResults.reverse();
  });
  return messages;
}

/** The ends of a conversation's prefixes that end in a user message: the requests of a session. */
export function requestEnds(messages: readonly Message[]): number[] {
  return messages.flatMap((message, index) => (message.role === 'user' ? [index + 1] : []));
}

/**
 * A generated conversation with every turn's calls named `call_0`, `call_1`, … again (its ids are
 * `toolu_<turn>_<call>`), as some OpenAI-compatible servers and SWE-agent runs name them.
 */
export function withReusedIds(messages: readonly Message[]): Message[] {
  return JSON.parse(JSON.stringify(messages).replace(/"toolu_\d+_(\d+)"/g, '"call_$1"')) as Message[];
}

/**
 * Conversations that {@link validateMessages} accepts: 1–8 exchanges with parallel tool calls,
 * thinking, images, unknown blocks, empty and huge tool results, split same-role turns.
 *
 * @example
 * fc.assert(fc.property(arbitraryValidConversation(), (messages) => validateMessages(messages).length === 0));
 */
export function arbitraryValidConversation(): fc.Arbitrary<Message[]> {
  return fc
    .tuple(fc.array(arbitraryTurnPlan, { minLength: 1, maxLength: 8 }), fc.boolean())
    .map(([plans, endWithAssistant]) => buildConversation(plans, endWithAssistant));
}

/** One way to break a conversation; indices are taken modulo the sizes they index. */
type Mutation =
  | { kind: 'drop-message'; at: number }
  | { kind: 'drop-block'; at: number; block: number }
  | { kind: 'duplicate-block'; at: number; block: number }
  | { kind: 'reverse-blocks'; at: number }
  | { kind: 'insert-block'; at: number; block: ContentBlock }
  | { kind: 'empty-content'; at: number; content: '' | ' ' | [] }
  | { kind: 'insert-message'; at: number; message: Message }
  | { kind: 'move-block'; from: number; block: number; to: number }
  | { kind: 'set-role'; at: number; role: Message['role'] };

const idPool = ['toolu_a', 'toolu_b', 'toolu_0_0', 'toolu_1_0', 'toolu_1_1'];

const arbitraryLooseToolBlock: fc.Arbitrary<ContentBlock> = fc.oneof(
  fc.record({
    type: fc.constant('tool_use' as const),
    id: fc.constantFrom(...idPool),
    name: fc.constantFrom('bash', 'read_file'),
    input: arbitraryToolInput,
  }),
  fc.record({
    type: fc.constant('tool_result' as const),
    tool_use_id: fc.constantFrom(...idPool),
    content: arbitraryToolResultContent,
  }),
);

const arbitraryAnyBlock: fc.Arbitrary<ContentBlock> = fc.oneof(
  { weight: 3, arbitrary: arbitraryTextBlock },
  {
    weight: 1,
    arbitrary: fc.constantFrom<ContentBlock>({ type: 'text', text: '' }, { type: 'text', text: ' \n\t' }),
  },
  { weight: 1, arbitrary: arbitraryImageBlock },
  { weight: 1, arbitrary: arbitraryThinkingBlock },
  { weight: 1, arbitrary: arbitraryUnknownBlock },
  { weight: 4, arbitrary: arbitraryLooseToolBlock },
  {
    weight: 1,
    arbitrary: fc.constant<ContentBlock>({
      type: 'tool_result',
      tool_use_id: 'toolu_a',
      content: [
        { type: 'text', text: '' },
        { type: 'text', text: 'kept' },
      ],
    }),
  },
);

const arbitraryAnyMessage: fc.Arbitrary<Message> = fc.record({
  role: fc.constantFrom<Message['role']>('user', 'assistant'),
  content: fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom('', '  ', 'hello') },
    { weight: 4, arbitrary: fc.array(arbitraryAnyBlock, { maxLength: 5 }) },
  ),
});

const arbitraryMutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('drop-message' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('drop-block' as const), at: fc.nat(), block: fc.nat() }),
  fc.record({ kind: fc.constant('duplicate-block' as const), at: fc.nat(), block: fc.nat() }),
  fc.record({ kind: fc.constant('reverse-blocks' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('insert-block' as const), at: fc.nat(), block: arbitraryAnyBlock }),
  fc.record({
    kind: fc.constant('empty-content' as const),
    at: fc.nat(),
    content: fc.constantFrom<'' | ' ' | []>('', ' ', []),
  }),
  fc.record({ kind: fc.constant('insert-message' as const), at: fc.nat(), message: arbitraryAnyMessage }),
  fc.record({ kind: fc.constant('move-block' as const), from: fc.nat(), block: fc.nat(), to: fc.nat() }),
  fc.record({
    kind: fc.constant('set-role' as const),
    at: fc.nat(),
    role: fc.constantFrom<Message['role']>('user', 'assistant'),
  }),
);

/** Applies one mutation, copying what it changes (the input stays as it was). */
function mutate(messages: readonly Message[], mutation: Mutation): Message[] {
  const copy = [...messages];
  if (copy.length === 0) return mutation.kind === 'insert-message' ? [mutation.message] : copy;
  const blocksAt = (index: number): ContentBlock[] => {
    const content = copy[index]!.content;
    return typeof content === 'string' ? [{ type: 'text', text: content }] : [...content];
  };
  const setBlocks = (index: number, blocks: ContentBlock[]): void => {
    copy[index] = { ...copy[index]!, content: blocks };
  };
  switch (mutation.kind) {
    case 'drop-message':
      copy.splice(mutation.at % copy.length, 1);
      return copy;
    case 'drop-block': {
      const at = mutation.at % copy.length;
      const blocks = blocksAt(at);
      if (blocks.length > 0) blocks.splice(mutation.block % blocks.length, 1);
      setBlocks(at, blocks);
      return copy;
    }
    case 'duplicate-block': {
      const at = mutation.at % copy.length;
      const blocks = blocksAt(at);
      const index = mutation.block % Math.max(blocks.length, 1);
      const block = blocks[index];
      if (block) blocks.splice(index, 0, { ...block });
      setBlocks(at, blocks);
      return copy;
    }
    case 'reverse-blocks': {
      const at = mutation.at % copy.length;
      setBlocks(at, blocksAt(at).reverse());
      return copy;
    }
    case 'insert-block': {
      const at = mutation.at % copy.length;
      const blocks = blocksAt(at);
      blocks.splice(mutation.at % (blocks.length + 1), 0, mutation.block);
      setBlocks(at, blocks);
      return copy;
    }
    case 'empty-content': {
      const at = mutation.at % copy.length;
      copy[at] = { ...copy[at]!, content: mutation.content };
      return copy;
    }
    case 'insert-message':
      copy.splice(mutation.at % (copy.length + 1), 0, mutation.message);
      return copy;
    case 'move-block': {
      const from = mutation.from % copy.length;
      const to = mutation.to % copy.length;
      const source = blocksAt(from);
      if (source.length === 0) return copy;
      const [block] = source.splice(mutation.block % source.length, 1);
      setBlocks(from, source);
      const target = blocksAt(to);
      target.unshift(block!);
      setBlocks(to, target);
      return copy;
    }
    case 'set-role': {
      const at = mutation.at % copy.length;
      copy[at] = { ...copy[at]!, role: mutation.role };
      return copy;
    }
    default: {
      const unreachable: never = mutation;
      throw new Error(`unknown mutation ${JSON.stringify(unreachable)}`);
    }
  }
}

/**
 * Well-typed conversations that may break any pairing, ordering or emptiness rule: valid
 * conversations with 0–4 mutations (dropped, duplicated, moved, emptied blocks and messages, flipped
 * roles), and free-form ones whose tool ids collide. About one in five is left valid.
 *
 * @example
 * fc.assert(fc.property(arbitraryAnyConversation(), (messages) => {
 *   expect(validateMessages(repairMessages(messages).messages)).toEqual([]);
 * }));
 */
export function arbitraryAnyConversation(): fc.Arbitrary<Message[]> {
  const mutated = fc
    .tuple(arbitraryValidConversation(), fc.array(arbitraryMutation, { maxLength: 4 }))
    .map(([messages, mutations]) => mutations.reduce(mutate, messages));
  const freeForm = fc.array(arbitraryAnyMessage, { maxLength: 8 });
  return fc.oneof({ weight: 3, arbitrary: mutated }, { weight: 1, arbitrary: freeForm });
}
