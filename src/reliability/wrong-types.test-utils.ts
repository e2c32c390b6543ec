/**
 * Wrong types at every path of a request body: one realistic valid body per wire format and, for
 * each JSON path in it, the same body with the value there replaced by one of another type or
 * removed. Test-only (excluded from the build).
 */
import { readFileSync } from 'node:fs';
import type { WireFormat } from '../core/model/wire-format.js';
import { geminiBody } from '../core/wire/gemini/gemini-session.test-utils.js';
import { random } from './reliability.test-utils.js';

/** A JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
/** A request body. */
export type Body = { [key: string]: Json };
type Path = readonly (string | number)[];

const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`../core/request/__fixtures__/${name}`, import.meta.url), 'utf8')) as Body;
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** Claude Code's request, cut to a few turns and two tools, with an image and redacted thinking. */
function anthropicBody(): Body {
  const body = fixture('claude-code-request.json');
  const messages = body.messages as Json[];
  const tools = body.tools as Json[];
  const kept = [...messages.slice(0, 6), ...messages.slice(-2)] as { content: Json[] }[];
  // The last result also carries a screenshot, as a Read of an image does.
  kept
    .at(-1)
    ?.content.push({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } });
  kept[4]?.content.unshift({ type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4a' });
  return { ...body, messages: kept as Json[], tools: tools.slice(0, 2) };
}

/** Codex's request, cut to a few steps, with an image the user pasted and an assistant message. */
function responsesBody(): Body {
  const body = fixture('codex-request.json');
  const input = body.input as Json[];
  const tools = body.tools as Json[];
  return {
    ...body,
    input: [
      ...input.slice(0, 3),
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: 'The failure looks like this:' },
          { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'auto' },
        ],
      },
      ...input.slice(4, 10),
      {
        type: 'message',
        role: 'assistant',
        id: 'msg_0100',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Part 2 passes; checking the last part.', annotations: [] }],
      },
      ...input.slice(-3),
    ],
    tools: tools.slice(0, 2),
  };
}

const fileText = (name: string) =>
  Array.from(
    { length: 60 },
    (_, line) => `${line + 1}\t// ${name}: const value${line} = compute(${line});`,
  ).join('\n');

/** An OpenAI Chat Completions request as an agent on that API sends it. */
function openaiBody(): Body {
  const call = (id: string, command: string) => ({
    id,
    type: 'function',
    function: { name: 'shell', arguments: JSON.stringify({ command }) },
  });
  return {
    model: 'gpt-4.1',
    messages: [
      { role: 'system', content: 'You are a coding agent.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'The tests fail; this is the screen.' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}`, detail: 'low' } },
        ],
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [call('call_1', 'cat src/a.ts'), call('call_2', 'cat src/b.ts')],
      },
      { role: 'tool', tool_call_id: 'call_1', content: fileText('a') },
      { role: 'tool', tool_call_id: 'call_2', content: [{ type: 'text', text: fileText('b') }] },
      {
        role: 'assistant',
        content: 'Both read; running the tests.',
        tool_calls: [call('call_3', 'npm test')],
      },
      { role: 'tool', tool_call_id: 'call_3', content: fileText('test output') },
      { role: 'user', content: 'Go on.' },
    ],
    tools: [
      {
        type: 'function',
        function: {
          name: 'shell',
          description: 'Runs a shell command.',
          parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
        },
      },
    ],
    tool_choice: 'auto',
    max_completion_tokens: 4096,
    stream: true,
    stream_options: { include_usage: true },
  };
}

/** Gemini CLI's request shape, with thought parts, signed calls and images in function responses. */
function geminiRequestBody(): Body {
  return geminiBody(3, { lines: 40, images: true }) as unknown as Body;
}

/** One realistic valid request body per wire format. */
export const bodies: Record<WireFormat, () => Body> = {
  anthropic: anthropicBody,
  responses: responsesBody,
  openai: openaiBody,
  gemini: geminiRequestBody,
};

/** Every path in a JSON value, the root excluded, parents before children. */
function pathsOf(value: Json, prefix: Path = []): Path[] {
  if (value === null || typeof value !== 'object') return [];
  const entries: [string | number, Json][] = Array.isArray(value)
    ? value.map((item, index) => [index, item])
    : Object.entries(value);
  return entries.flatMap(([key, child]) => [[...prefix, key], ...pathsOf(child, [...prefix, key])]);
}

const valueAt = (body: Json, path: Path): Json =>
  path.reduce<Json>((value, key) => (value as Record<string | number, Json>)[key] as Json, body);

const kindOf = (value: Json) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

/** A wrong value for a path: a replacement, or the key (or array item) removed. */
type Mutation = { name: string; value: Json } | { name: 'removed' };

const LONG_STRING = 'x'.repeat(300_000);

/** Every value of another kind than `original` (and for a string, other strings and a very long one). */
function mutationsFor(original: Json): Mutation[] {
  const all: { name: string; value: Json }[] = [
    { name: 'null', value: null },
    { name: 'a number', value: 42 },
    { name: 'a negative fraction', value: -1.5 },
    { name: 'a string', value: 'wrong' },
    { name: 'an empty string', value: '' },
    { name: 'a boolean', value: true },
    { name: 'an empty array', value: [] },
    { name: 'an array', value: [1, 'two', null] },
    { name: 'an empty object', value: {} },
    { name: 'an object', value: { unexpected: 1 } },
  ];
  const isString = typeof original === 'string';
  return [
    ...all.filter(({ value }) => isString || kindOf(value) !== kindOf(original)),
    ...(isString ? [{ name: 'a very long string', value: LONG_STRING }] : []),
    { name: 'removed' as const },
  ];
}

function mutate(body: Json, path: Path, mutation: Mutation): Json {
  const copy = structuredClone(body);
  const parent = valueAt(copy, path.slice(0, -1)) as Record<string | number, Json>;
  const key = path.at(-1) as string | number;
  if ('value' in mutation) parent[key] = mutation.value;
  else if (Array.isArray(parent)) parent.splice(Number(key), 1);
  else delete parent[key];
  return copy;
}

const pathText = (path: Path) =>
  path.map((key, index) => (typeof key === 'number' ? `[${key}]` : index === 0 ? key : `.${key}`)).join('');

/** One mutated body: where it changed (`messages[3].role`), to what, and the body. */
export interface MutatedBody {
  path: string;
  mutation: string;
  body: Json;
}

/**
 * The mutated bodies of `body`: at every path the first of its wrong values (picked with the
 * seed), then a seeded `share` (0 to 1) of the others. The same seed gives the same bodies.
 */
export function* mutatedBodies(
  body: Body,
  { seed, share }: { seed: number; share: number },
): Generator<MutatedBody> {
  const next = random(seed);
  for (const path of pathsOf(body)) {
    const mutations = mutationsFor(valueAt(body, path));
    const start = Math.floor(next() * mutations.length);
    for (let offset = 0; offset < mutations.length; offset++) {
      const mutation = mutations[(start + offset) % mutations.length] as Mutation;
      if (offset > 0 && next() >= share) continue;
      yield { path: pathText(path), mutation: mutation.name, body: mutate(body, path, mutation) };
    }
  }
}

/** How many paths `body` has: each gets at least one mutated body. */
export const pathCount = (body: Body): number => pathsOf(body).length;
