/**
 * Responses inputs typed with the official SDK's types, so their shapes are the API's: a Codex-like
 * session (developer instructions, reasoning with encrypted content, shell calls, an apply_patch
 * custom tool) and arbitraries for property tests.
 */
import fc from 'fast-check';
import type {
  ResponseInputItem,
  ResponseInputText,
  ResponseOutputText,
} from 'openai/resources/responses/responses';

/** Opaque reasoning the test server and fixtures hand out; it must come back unchanged. */
export const encryptedSample = 'gAAAAABo-ENCRYPTED-REASONING==';

/** A Codex-like session as the Responses API receives it (`store: false`, encrypted reasoning). */
export function codexLikeInput(): ResponseInputItem[] {
  return [
    {
      type: 'message',
      role: 'developer',
      content: [
        {
          type: 'input_text',
          text: '<permissions instructions>sandbox: workspace-write</permissions instructions>',
        },
      ],
    },
    {
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: '<environment_context>cwd: /repo</environment_context>' }],
    },
    {
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: 'Fix the failing test in src/sum.ts' }],
    },
    {
      type: 'reasoning',
      id: 'rs_001',
      summary: [{ type: 'summary_text', text: 'Look at the test output first.' }],
      content: null as never,
      encrypted_content: `${encryptedSample}1`,
    },
    {
      type: 'function_call',
      name: 'shell',
      arguments: '{"command":["bash","-lc","npm test"],"workdir":"/repo"}',
      call_id: 'call_001',
    },
    {
      type: 'function_call_output',
      call_id: 'call_001',
      output: 'FAIL src/sum.test.ts\n  expected 3, got 4\n',
    },
    { type: 'reasoning', id: 'rs_002', summary: [], encrypted_content: `${encryptedSample}2` },
    {
      type: 'custom_tool_call',
      id: 'ctc_002',
      call_id: 'call_002',
      name: 'apply_patch',
      input:
        '*** Begin Patch\n*** Update File: src/sum.ts\n-  return a + b + 1;\n+  return a + b;\n*** End Patch',
    },
    { type: 'custom_tool_call_output', call_id: 'call_002', output: 'Success. Updated src/sum.ts' },
    {
      type: 'message',
      id: 'msg_003',
      role: 'assistant',
      status: 'completed',
      phase: 'final_answer',
      content: [{ type: 'output_text', text: 'Fixed: sum no longer adds 1.', annotations: [], logprobs: [] }],
    },
    { role: 'user', content: 'Thanks. Now look at this screenshot.' },
    {
      role: 'user',
      content: [
        { type: 'input_text', text: 'The page renders blank:' },
        { type: 'input_image', detail: 'high', image_url: 'data:image/png;base64,iVBORw0KGgo=' },
        { type: 'input_file', file_id: 'file-abc', filename: 'log.txt' },
      ],
    },
  ];
}

/** A session after server-side compaction: user messages kept, then the compaction item. */
export function compactedInput(): ResponseInputItem[] {
  return [
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Fix the failing test' }] },
    { type: 'compaction', id: 'cmp_001', encrypted_content: `${encryptedSample}C` },
    { type: 'item_reference', id: 'msg_stored_1' },
    { id: 'msg_stored_2' } as ResponseInputItem,
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Go on' }] },
  ];
}

const word = fc.constantFrom('ls', 'src/a.ts', 'fix', 'the', 'test', '{"x":1}', ' ', 'é', '\n');
const text = fc.array(word, { minLength: 1, maxLength: 5 }).map((words) => words.join(' '));
const id = (prefix: string) => fc.nat(50).map((number) => `${prefix}_${number}`);
const status = fc.constantFrom<'completed' | 'in_progress' | 'incomplete'>(
  'completed',
  'in_progress',
  'incomplete',
);

const inputText: fc.Arbitrary<ResponseInputText> = text.map((value) => ({ type: 'input_text', text: value }));
const outputText: fc.Arbitrary<ResponseOutputText> = fc.record(
  { type: fc.constant('output_text' as const), text, annotations: fc.constant([]) },
  { requiredKeys: ['type', 'text'] },
) as fc.Arbitrary<ResponseOutputText>;
const inputPart = fc.oneof(
  inputText,
  fc.record({
    type: fc.constant('input_image' as const),
    detail: fc.constantFrom<'auto' | 'low' | 'high'>('auto', 'low', 'high'),
    image_url: fc.constantFrom('https://example.com/a.png', 'data:image/png;base64,AAAA'),
  }),
  fc.record({
    type: fc.constant('input_image' as const),
    detail: fc.constant('auto' as const),
    file_id: id('file'),
  }),
  fc.record({
    type: fc.constant('input_file' as const),
    file_id: id('file'),
    filename: fc.constant('a.txt'),
  }),
);

/** Any one Responses input item, in the SDK's shapes (with and without optional fields). */
export const arbitraryResponsesItem: fc.Arbitrary<ResponseInputItem> = fc.oneof(
  fc.record(
    {
      type: fc.constant('message' as const),
      role: fc.constantFrom<'user' | 'system' | 'developer'>('user', 'system', 'developer'),
      content: fc.array(inputPart, { minLength: 1, maxLength: 3 }),
      status,
    },
    { requiredKeys: ['role', 'content'] },
  ),
  fc.record({ role: fc.constantFrom<'user' | 'assistant'>('user', 'assistant'), content: text }),
  fc.record(
    {
      type: fc.constant('message' as const),
      id: id('msg'),
      role: fc.constant('assistant' as const),
      status,
      content: fc.array(outputText, { minLength: 1, maxLength: 2 }),
    },
    { requiredKeys: ['type', 'role', 'content'] },
  ) as fc.Arbitrary<ResponseInputItem>,
  fc.record(
    {
      type: fc.constant('function_call' as const),
      id: id('fc'),
      call_id: id('call'),
      name: fc.constantFrom('shell', 'read_file'),
      arguments: fc.constantFrom('{"command":"ls"}', '{ "path": "a.ts" }', '', 'not json', '[1,2]', '{}'),
      status,
    },
    { requiredKeys: ['type', 'call_id', 'name', 'arguments'] },
  ),
  fc.record(
    {
      type: fc.constant('function_call_output' as const),
      id: id('fco'),
      call_id: id('call'),
      output: fc.oneof(text, fc.array(inputPart, { maxLength: 2 })),
    },
    { requiredKeys: ['type', 'call_id', 'output'] },
  ),
  fc.record({
    type: fc.constant('custom_tool_call' as const),
    call_id: id('call'),
    name: fc.constant('apply_patch'),
    input: text,
  }),
  fc.record({ type: fc.constant('custom_tool_call_output' as const), call_id: id('call'), output: text }),
  fc.record(
    {
      type: fc.constant('reasoning' as const),
      id: id('rs'),
      summary: fc.array(
        text.map((value) => ({ type: 'summary_text' as const, text: value })),
        { maxLength: 2 },
      ),
      encrypted_content: fc.base64String({ minLength: 4, maxLength: 24 }),
    },
    { requiredKeys: ['type', 'id', 'summary'] },
  ),
  fc.record({
    type: fc.constant('compaction' as const),
    encrypted_content: fc.base64String({ minLength: 4 }),
  }),
  fc.record({ type: fc.constant('item_reference' as const), id: id('msg') }),
  id('msg').map((value) => ({ id: value }) as ResponseInputItem),
  fc.record({
    type: fc.constant('web_search_call' as const),
    id: id('ws'),
    status: fc.constant('completed' as const),
  }) as fc.Arbitrary<ResponseInputItem>,
);

/**
 * A long Codex-like session: per turn a reasoning item (encrypted), a shell `function_call` with a
 * large output, and every third turn an `apply_patch` custom call; a final assistant message.
 */
export function codexSession(turns: number, { lines = 120 } = {}): ResponseInputItem[] {
  const items: ResponseInputItem[] = [
    {
      type: 'message',
      role: 'developer',
      content: [{ type: 'input_text', text: 'You are Codex, a coding agent.' }],
    },
    {
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: 'Make every test in the repo pass.' }],
    },
  ];
  for (let turn = 1; turn <= turns; turn++) {
    items.push({
      type: 'reasoning',
      id: `rs_${turn}`,
      summary: [{ type: 'summary_text', text: `Turn ${turn}: read module ${turn}.` }],
      encrypted_content: `${encryptedSample}${turn}`,
    });
    if (turn % 3 === 0) {
      items.push(
        {
          type: 'custom_tool_call',
          call_id: `patch_${turn}`,
          name: 'apply_patch',
          input: `*** Begin Patch\n*** Update File: src/m${turn}.ts\n${'+line\n'.repeat(lines)}*** End Patch`,
        },
        {
          type: 'custom_tool_call_output',
          call_id: `patch_${turn}`,
          output: `Success. Updated src/m${turn}.ts`,
        },
      );
      continue;
    }
    items.push(
      {
        type: 'function_call',
        id: `fc_${turn}`,
        call_id: `call_${turn}`,
        name: 'shell',
        arguments: JSON.stringify({ command: ['bash', '-lc', `cat src/m${turn}.ts`], workdir: '/repo' }),
        status: 'completed',
      },
      {
        type: 'function_call_output',
        call_id: `call_${turn}`,
        output: Array.from(
          { length: lines },
          (_, line) => `${line + 1}: export const value${line} = ${turn * line};`,
        ).join('\n'),
      },
    );
  }
  items.push({
    type: 'message',
    id: 'msg_final',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text: `Done after ${turns} turns. `.repeat(60), annotations: [] }],
  });
  items.push({
    type: 'message',
    role: 'user',
    content: [{ type: 'input_text', text: 'Now run the linter.' }],
  });
  return items;
}
