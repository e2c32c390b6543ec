/**
 * The bad-input corpus: malformed, hostile and odd conversation files, each with what must happen.
 * `unreadable`: the input cannot be read as a conversation (parse fails, CLI exit 2);
 * `invalid`: it reads, but breaks the provider's rules (validation fails, CLI exit 1);
 * `odd`: valid but unusual, and must simply work (exit 0). Test-only (excluded from the build).
 */
import { gzipSync } from 'node:zlib';

/** What must happen with a corpus entry. */
export type BadInputKind = 'unreadable' | 'invalid' | 'odd';

/** One corpus entry. */
export interface BadInput {
  name: string;
  kind: BadInputKind;
  /** File name in the temp folder (the extension matters to nobody; JSONL is detected). */
  file: string;
  /** The file's bytes, built lazily (some are large). */
  content: () => string | Buffer;
  /**
   * Bytes the CLI refuses as unreadable (exit 2, naming the file) though their text, once a caller
   * decoded it, is valid for the library: bytes that are not UTF-8.
   */
  unreadableBytes?: true;
}

const json = (value: unknown) => JSON.stringify(value);
const jsonl = (...values: unknown[]) => `${values.map((value) => JSON.stringify(value)).join('\n')}\n`;
const user = (content: unknown) => ({ role: 'user', content });
const assistant = (content: unknown) => ({ role: 'assistant', content });
const toolUse = (id: string, input: unknown = { command: 'ls' }) => ({
  type: 'tool_use',
  id,
  name: 'bash',
  input,
});
const toolResult = (id: string, content: unknown = 'ok') => ({
  type: 'tool_result',
  tool_use_id: id,
  content,
});
const good = [
  user('Fix the failing tests.'),
  assistant([{ type: 'text', text: 'Running them.' }, toolUse('toolu_1')]),
  user([toolResult('toolu_1', 'FAIL src/a.test.ts')]),
  assistant('The test expects 4 but 1 + 2 is 3.'),
];

function nestedArrays(depth: number): string {
  return `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

function nestedObject(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** Deterministic pseudo-random bytes. */
function bytes(length: number, seed: number): Buffer {
  const buffer = Buffer.alloc(length);
  let state = seed >>> 0;
  for (let index = 0; index < length; index++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    buffer[index] = state >>> 24;
  }
  return buffer;
}

export const badInputs: BadInput[] = [
  // --- unreadable: not a conversation at all -------------------------------------------------
  { name: 'an empty file', kind: 'unreadable', file: 'empty.json', content: () => '' },
  { name: 'whitespace only', kind: 'unreadable', file: 'blank.json', content: () => ' \n\t\r\n  ' },
  { name: 'a byte order mark only', kind: 'unreadable', file: 'bom.json', content: () => '\ufeff' },
  {
    name: 'truncated JSON object',
    kind: 'unreadable',
    file: 'truncated-object.json',
    content: () => json({ messages: good }).slice(0, 60),
  },
  {
    name: 'truncated JSON array',
    kind: 'unreadable',
    file: 'truncated-array.json',
    content: () => json(good).slice(0, -7),
  },
  {
    name: 'truncated last JSONL line',
    kind: 'unreadable',
    file: 'truncated.jsonl',
    content: () => jsonl(...good).slice(0, -20),
  },
  {
    name: 'a broken JSONL line in the middle',
    kind: 'unreadable',
    file: 'broken-middle.jsonl',
    content: () => `${json(good[0])}\n{"role":"assistant","content":[{"type":"te\n${json(good[2])}\n`,
  },
  {
    name: 'binary data (a PNG header and random bytes)',
    kind: 'unreadable',
    file: 'image.json',
    content: () =>
      Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), bytes(4096, 7)]),
  },
  {
    name: 'gzip-compressed JSON',
    kind: 'unreadable',
    file: 'session.json.gz',
    content: () => gzipSync(json(good)),
  },
  { name: 'NUL bytes', kind: 'unreadable', file: 'zeros.json', content: () => Buffer.alloc(2048) },
  { name: 'a JSON number', kind: 'unreadable', file: 'number.json', content: () => '42' },
  { name: 'JSON null', kind: 'unreadable', file: 'null.json', content: () => 'null' },
  { name: 'a JSON string', kind: 'unreadable', file: 'string.json', content: () => '"Fix the tests"' },
  {
    name: 'an object without messages',
    kind: 'unreadable',
    file: 'no-messages.json',
    content: () => json({ conversation: good }),
  },
  {
    name: 'messages is an object',
    kind: 'unreadable',
    file: 'messages-object.json',
    content: () => json({ messages: { 0: good[0] } }),
  },
  {
    name: 'messages is a string',
    kind: 'unreadable',
    file: 'messages-string.json',
    content: () => json({ messages: 'hi' }),
  },
  {
    name: 'a null message',
    kind: 'unreadable',
    file: 'null-message.json',
    content: () => json([good[0], null]),
  },
  {
    name: 'a number as a message',
    kind: 'unreadable',
    file: 'number-message.json',
    content: () => json([42]),
  },
  {
    name: 'a message without a role',
    kind: 'unreadable',
    file: 'no-role.json',
    content: () => json([{ content: 'hi' }]),
  },
  {
    name: 'an unknown role',
    kind: 'unreadable',
    file: 'wizard.json',
    content: () => json([{ role: 'wizard', content: 'hi' }]),
  },
  {
    name: 'a role of the wrong type',
    kind: 'unreadable',
    file: 'role-number.json',
    content: () => json([{ role: 5, content: 'hi' }]),
  },
  {
    name: 'content of the wrong type (number)',
    kind: 'unreadable',
    file: 'content-number.json',
    content: () => json([user(5)]),
  },
  {
    name: 'content that is a block, not a list',
    kind: 'unreadable',
    file: 'content-object.json',
    content: () => json([user({ type: 'text', text: 'hi' })]),
  },
  { name: 'a null block', kind: 'unreadable', file: 'null-block.json', content: () => json([user([null])]) },
  {
    name: 'a block without a type',
    kind: 'unreadable',
    file: 'untyped-block.json',
    content: () => json([user([{ text: 'hi' }])]),
  },
  {
    name: 'text of the wrong type',
    kind: 'unreadable',
    file: 'text-number.json',
    content: () => json([user([{ type: 'text', text: 5 }])]),
  },
  {
    name: 'a tool_use id of the wrong type',
    kind: 'unreadable',
    file: 'tool-id-number.json',
    content: () => json([good[0], assistant([{ type: 'tool_use', id: 7, name: 'bash', input: {} }])]),
  },
  {
    name: 'tool_result content of the wrong type',
    kind: 'unreadable',
    file: 'result-object.json',
    content: () =>
      json([good[0], assistant([toolUse('toolu_1')]), user([toolResult('toolu_1', { text: 'ok' })])]),
  },
  {
    name: '10,000 nested arrays as a message',
    kind: 'unreadable',
    file: 'nested-arrays.json',
    content: () => `[${json(good[0])},${nestedArrays(10_000)}]`,
  },
  {
    name: '10,000 nested levels in a tool input',
    kind: 'unreadable',
    file: 'nested-input.json',
    content: () =>
      `[${json(good[0])},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"bash","input":${nestedObject(10_000)}}]}]`,
  },
  {
    name: '100,000 nested levels (deeper than the JSON parser goes)',
    kind: 'unreadable',
    file: 'nested-deeper.json',
    content: () => nestedArrays(100_000),
  },
  {
    name: 'a NaN literal',
    kind: 'unreadable',
    file: 'nan.json',
    content: () => '[{"role":"user","content":NaN}]',
  },
  {
    name: 'a trailing comma',
    kind: 'unreadable',
    file: 'trailing-comma.json',
    content: () => '[{"role":"user","content":"hi"},]',
  },
  {
    name: 'comments',
    kind: 'unreadable',
    file: 'comments.json',
    content: () => '// the task\n[{"role":"user","content":"hi"}]',
  },
  {
    name: 'single quotes',
    kind: 'unreadable',
    file: 'single-quotes.json',
    content: () => "[{'role':'user','content':'hi'}]",
  },
  {
    name: 'a system prompt of the wrong type',
    kind: 'unreadable',
    file: 'system-number.json',
    content: () => json({ system: 5, messages: good }),
  },
  {
    name: 'OpenAI tool_calls that are not a list',
    kind: 'unreadable',
    file: 'openai-tool-calls.json',
    content: () =>
      json([
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: null, tool_calls: { id: 'call_1' } },
      ]),
  },
  {
    name: 'an OpenAI tool message without tool_call_id',
    kind: 'unreadable',
    file: 'openai-tool-no-id.json',
    content: () =>
      json([
        { role: 'user', content: 'hi' },
        { role: 'tool', content: 'ok' },
      ]),
  },
  {
    name: 'terminal escape sequences in a role',
    kind: 'unreadable',
    file: 'escape-role.json',
    content: () => json([{ role: '\u001b[2J\u001b[31mwizard\u0007', content: 'hi' }]),
  },
  {
    name: 'terminal escape sequences in broken JSON',
    kind: 'unreadable',
    file: 'escape-broken.json',
    content: () => '\u001b]0;pwned\u0007\u001b[2J{"role":',
  },
  {
    name: 'a message that is a JSON array in JSONL',
    kind: 'unreadable',
    file: 'array-line.jsonl',
    content: () => `${json(good[0])}\n[1,2,3]\n`,
  },

  // --- invalid: reads, but the provider would reject it ---------------------------------------
  {
    name: 'the first message is from the assistant',
    kind: 'invalid',
    file: 'assistant-first.json',
    content: () => json(good.slice(1)),
  },
  {
    name: 'duplicate tool_use ids',
    kind: 'invalid',
    file: 'duplicate-ids.json',
    content: () =>
      json([
        good[0],
        assistant([toolUse('toolu_1'), toolUse('toolu_1', { command: 'pwd' })]),
        user([toolResult('toolu_1'), toolResult('toolu_1')]),
      ]),
  },
  {
    name: 'an orphan tool_result',
    kind: 'invalid',
    file: 'orphan-result.json',
    content: () => json([good[0], assistant('Looking.'), user([toolResult('toolu_9', 'where from?')])]),
  },
  {
    name: 'a tool_use without a result',
    kind: 'invalid',
    file: 'missing-result.json',
    content: () => json([good[0], assistant([toolUse('toolu_1')]), user('Any news?')]),
  },
  {
    name: 'two results for one tool_use',
    kind: 'invalid',
    file: 'two-results.json',
    content: () =>
      json([
        good[0],
        assistant([toolUse('toolu_1')]),
        user([toolResult('toolu_1'), toolResult('toolu_1', 'again')]),
      ]),
  },
  {
    name: 'an empty content list',
    kind: 'invalid',
    file: 'empty-content.json',
    content: () => json([user([])]),
  },
  {
    name: 'an empty text block',
    kind: 'invalid',
    file: 'empty-text.json',
    content: () => json([user([{ type: 'text', text: '' }])]),
  },
  {
    name: 'an OpenAI tool message answering no call',
    kind: 'invalid',
    file: 'openai-orphan.jsonl',
    content: () =>
      jsonl({ role: 'user', content: 'hi' }, { role: 'tool', tool_call_id: 'call_9', content: 'ok' }),
  },

  // --- odd: valid, and must simply work -------------------------------------------------------
  // An empty list passes validateMessages today, though the APIs ask for at least one message.
  {
    name: 'a conversation of no messages',
    kind: 'odd',
    file: 'zero-messages.json',
    content: () => json({ messages: [] }),
  },
  {
    name: 'lone UTF-16 surrogates (escaped)',
    kind: 'odd',
    file: 'surrogates.json',
    content: () => '[{"role":"user","content":"bad \\ud800 pair \\udfff end"}]',
  },
  {
    name: 'invalid UTF-8 bytes inside a string',
    kind: 'odd',
    unreadableBytes: true,
    file: 'bad-utf8.json',
    content: () =>
      Buffer.concat([
        Buffer.from('[{"role":"user","content":"caf'),
        Buffer.from([0xc3, 0x28, 0xff, 0xed, 0xa0, 0x80]),
        Buffer.from('"}]'),
      ]),
  },
  {
    name: '__proto__ keys everywhere',
    kind: 'odd',
    file: 'proto.json',
    content: () =>
      '{"__proto__":{"polluted":"top"},"messages":[{"role":"user","__proto__":{"role":"assistant","polluted":"message"},"content":[{"type":"text","text":"hi","__proto__":{"polluted":"block"}}]},' +
      '{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"bash","input":{"__proto__":{"polluted":"input"},"command":"ls"}}]},' +
      '{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}]}',
  },
  {
    name: 'constructor and prototype keys',
    kind: 'odd',
    file: 'constructor.json',
    content: () =>
      json({
        constructor: { prototype: { polluted: 'constructor' } },
        messages: [
          { role: 'user', content: 'hi', constructor: { prototype: { polluted: 'message' } } },
          assistant([toolUse('constructor', { constructor: { prototype: { polluted: 'input' } } })]),
          user([toolResult('constructor', 'prototype')]),
        ],
      }),
  },
  {
    name: 'an unknown block type',
    kind: 'odd',
    file: 'future-block.json',
    content: () =>
      json([
        user([
          { type: 'text', text: 'hi' },
          { type: 'future_block', payload: [1, 2, 3] },
        ]),
      ]),
  },
  {
    name: 'unknown fields on messages and blocks',
    kind: 'odd',
    file: 'extra-fields.json',
    content: () =>
      json([
        { role: 'user', content: [{ type: 'text', text: 'hi', mood: 'happy' }], id: 'msg_1', timestamp: 1 },
      ]),
  },
  {
    name: 'a 50 MB single tool result',
    kind: 'odd',
    file: 'huge-result.json',
    content: () =>
      json([
        good[0],
        assistant([toolUse('toolu_1', { command: 'cat build.log' })]),
        user([toolResult('toolu_1', 'npm WARN deprecated package@1.0.0: use 2.0\n'.repeat(1_200_000))]),
        assistant('The log is long; the build passed.'),
        user('Good. Now fix the tests.'),
      ]),
  },
  {
    name: 'empty tool results and an empty tool input',
    kind: 'odd',
    file: 'empty-results.json',
    content: () =>
      json([
        good[0],
        assistant([toolUse('toolu_1', {}), toolUse('toolu_2')]),
        user([toolResult('toolu_1', ''), { type: 'tool_result', tool_use_id: 'toolu_2', content: [] }]),
      ]),
  },
  {
    name: '10,000 messages',
    kind: 'odd',
    file: 'many.jsonl',
    content: () =>
      jsonl(
        ...Array.from({ length: 10_000 }, (_, index) =>
          index % 2 === 0 ? user(`question ${index}`) : assistant(`answer ${index}`),
        ),
      ),
  },
  {
    name: 'a 1 MB line of text without spaces',
    kind: 'odd',
    file: 'long-word.json',
    content: () => json([user(`${'a'.repeat(1_000_000)}`)]),
  },
  {
    name: 'emoji, combining marks and right-to-left text',
    kind: 'odd',
    file: 'unicode.json',
    content: () => json([user('👩‍💻 fix ñ́ and مرحبا and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢'), assistant('✅ done')]),
  },
  {
    name: 'CRLF line endings in JSONL',
    kind: 'odd',
    file: 'crlf.jsonl',
    content: () => jsonl(...good).replaceAll('\n', '\r\n'),
  },
  {
    name: 'OpenAI messages with null content and tool calls',
    kind: 'odd',
    file: 'openai.json',
    content: () =>
      json([
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'List the files.' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'ls', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'a.ts' },
      ]),
  },
];
