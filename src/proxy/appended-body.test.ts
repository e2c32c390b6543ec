import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { layoutOf, type ParsedBody, parseAppended } from './appended-body.js';

const system = [{ type: 'text', text: 'You are a coding agent. é ✓ 𝄞 "quoted" \\ ' }];
const tools = [
  { name: 'read_file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } },
];

function bodyOf(messages: unknown[], metadata: Record<string, unknown> = { session: 's1', turn: 'a' }) {
  return { model: 'claude-x', messages, system, tools, max_tokens: 64, stream: true, metadata } as Record<
    string,
    unknown
  >;
}

function bytes(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value));
}

/** A body parsed whole, as the proxy keeps it. */
function whole(raw: Buffer): ParsedBody {
  const body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
  return { raw, body, layout: layoutOf(raw, body, 'messages') };
}

const message = fc.record({
  role: fc.constantFrom('user', 'assistant'),
  content: fc.oneof(
    fc.string({ unit: 'grapheme' }),
    fc.array(fc.record({ type: fc.constant('text'), text: fc.string({ unit: 'binary' }) }), { maxLength: 3 }),
  ),
});

describe('layoutOf', () => {
  it('finds where each conversation item ends in the compact bytes', () => {
    const messages = [
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'bé' },
    ];
    const raw = bytes(bodyOf(messages));
    const layout = layoutOf(raw, bodyOf(messages), 'messages');
    if (layout === undefined) throw new Error('no layout');
    const text = raw.toString('latin1');
    expect(raw.subarray(layout.open - 1, layout.open).toString()).toBe('[');
    expect(raw.subarray(layout.open, layout.ends[0]).toString()).toBe(JSON.stringify(messages[0]));
    expect(raw.subarray((layout.ends[0] as number) + 1, layout.ends[1]).toString()).toBe(
      JSON.stringify(messages[1]),
    );
    expect(text[layout.ends[1] as number]).toBe(']');
  });

  it('has none for bytes that are not the compact serialization', () => {
    const body = bodyOf([{ role: 'user', content: 'a' }]);
    expect(layoutOf(Buffer.from(JSON.stringify(body, null, 2)), body, 'messages')).toBeUndefined();
    expect(
      layoutOf(Buffer.from(JSON.stringify(body).replace('é', '\\u00e9')), body, 'messages'),
    ).toBeUndefined();
  });

  it('has none for a body with a "__proto__" key, which an assignment would not rebuild', () => {
    const raw = Buffer.from('{"__proto__":{"a":1},"messages":[]}');
    const body = JSON.parse(raw.toString()) as Record<string, unknown>;
    expect(layoutOf(raw, body, 'messages')).toBeUndefined();
  });
});

describe('parseAppended', () => {
  it('reads appended messages from their bytes and keeps the earlier objects', () => {
    const earlier = [{ role: 'user', content: 'list the files' }];
    const previous = whole(bytes(bodyOf(earlier)));
    const next = [...earlier, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'next' }];
    const raw = bytes(bodyOf(next));
    const parsed = parseAppended(previous, raw, 'messages');
    expect(parsed?.body).toEqual(JSON.parse(raw.toString()));
    expect(Object.keys(parsed?.body ?? {})).toEqual(Object.keys(bodyOf(next)));
    const messages = parsed?.body.messages as unknown[];
    expect(messages[0]).toBe((previous.body.messages as unknown[])[0]);
    expect(parsed?.body.tools).toBe(previous.body.tools);
    expect(parsed?.layout).toEqual(layoutOf(raw, JSON.parse(raw.toString()), 'messages'));
  });

  it('reads again the last message when the client changed it (a moved cache marker)', () => {
    const marked = {
      role: 'user',
      content: [{ type: 'text', text: 'b', cache_control: { type: 'ephemeral' } }],
    };
    const previous = whole(
      bytes(bodyOf([{ role: 'user', content: 'a' }, { role: 'assistant', content: 'x' }, marked])),
    );
    const unmarked = { role: 'user', content: [{ type: 'text', text: 'b' }] };
    const raw = bytes(
      bodyOf([{ role: 'user', content: 'a' }, { role: 'assistant', content: 'x' }, unmarked, marked]),
    );
    const parsed = parseAppended(previous, raw, 'messages');
    expect(parsed?.body).toEqual(JSON.parse(raw.toString()));
    const messages = parsed?.body.messages as unknown[];
    expect(messages[1]).toBe((previous.body.messages as unknown[])[1]);
    expect(messages[2]).not.toBe((previous.body.messages as unknown[])[2]);
  });

  it('reads the last field again when it changed (Codex writes its metadata in a new order each turn)', () => {
    const earlier = [{ role: 'user', content: 'a' }];
    const previous = whole(bytes(bodyOf(earlier, { session: 's1', turn: 'a' })));
    const raw = bytes(
      bodyOf([...earlier, { role: 'assistant', content: 'b' }], { turn: 'b', session: 's1' }),
    );
    const parsed = parseAppended(previous, raw, 'messages');
    expect(parsed?.body).toEqual(JSON.parse(raw.toString()));
    expect(Object.keys(parsed?.body.metadata as object)).toEqual(['turn', 'session']);
    expect(parsed?.body.tools).toBe(previous.body.tools);
    expect(parsed?.layout).toEqual(layoutOf(raw, JSON.parse(raw.toString()), 'messages'));
  });

  it('reads every field after the first again when more of them changed, or one was dropped', () => {
    const earlier = [{ role: 'user', content: 'a' }];
    const previous = whole(bytes(bodyOf(earlier)));
    const changed = { ...bodyOf([...earlier, { role: 'user', content: 'b' }]), max_tokens: 99 };
    const parsed = parseAppended(previous, bytes(changed), 'messages');
    expect(parsed?.body).toEqual(changed);
    expect(parsed?.body.system).toBe(previous.body.system);
    const { metadata: _dropped, ...shorter } = bodyOf(earlier);
    expect(parseAppended(previous, bytes(shorter), 'messages')?.body).toEqual(shorter);
  });

  it('takes a repeated field name as JSON.parse does, and gives that body no layout', () => {
    const previous = whole(bytes(bodyOf([{ role: 'user', content: 'a' }])));
    const text = JSON.stringify(bodyOf([{ role: 'user', content: 'a' }], { n: 2 })).replace(
      /\}$/,
      ',"model":"other"}',
    );
    const parsed = parseAppended(previous, Buffer.from(text), 'messages');
    expect(parsed?.body).toEqual(JSON.parse(text));
    expect(Object.keys(parsed?.body ?? {})).toEqual(Object.keys(JSON.parse(text)));
    expect(parsed?.layout).toBeUndefined();
  });

  it('declines changed fields that are not whole fields', () => {
    const previous = whole(bytes(bodyOf([{ role: 'user', content: 'a' }])));
    const text = JSON.stringify(bodyOf([{ role: 'user', content: 'a' }]));
    const lastField = text.lastIndexOf(',"metadata"');
    for (const junk of ['x"metadata":{}', ',', ' ,"metadata":{}x']) {
      const raw = Buffer.from(`${text.slice(0, lastField)}${junk}}`);
      expect(() => JSON.parse(raw.toString())).toThrow();
      expect(parseAppended(previous, raw, 'messages')).toBeUndefined();
    }
  });

  it('keeps a changed "__proto__" field an own field, as JSON.parse does, or parses it whole', () => {
    const previous = whole(bytes(bodyOf([{ role: 'user', content: 'a' }])));
    const text = JSON.stringify(bodyOf([{ role: 'user', content: 'a' }])).replace(
      /,"metadata":.*\}$/,
      ',"__proto__":{"polluted":true}}',
    );
    const parsed = parseAppended(previous, Buffer.from(text), 'messages');
    if (parsed !== undefined) expect(Object.hasOwn(parsed.body, '__proto__')).toBe(true);
    expect((parsed?.body as { polluted?: unknown } | undefined)?.polluted).toBeUndefined();
  });

  it('reads nothing new for the same bytes again', () => {
    const raw = bytes(bodyOf([{ role: 'user', content: 'a' }]));
    const parsed = parseAppended(whole(raw), Buffer.from(raw), 'messages');
    expect(parsed?.body).toEqual(JSON.parse(raw.toString()));
  });

  it('declines when anything outside the conversation changed, or the bytes are not JSON', () => {
    const messages = [{ role: 'user', content: 'a' }];
    const previous = whole(bytes(bodyOf(messages)));
    const more = [...messages, { role: 'assistant', content: 'b' }];
    // Past the first field after the conversation: parsed whole.
    expect(parseAppended(previous, bytes({ ...bodyOf(more), system: 'other' }), 'messages')).toBeUndefined();
    expect(
      parseAppended(previous, bytes({ ...bodyOf(more), model: 'claude-y' }), 'messages'),
    ).toBeUndefined();
    const trailingComma = Buffer.from(JSON.stringify(bodyOf(messages)).replace('"a"}]', '"a"},]'));
    expect(parseAppended(previous, trailingComma, 'messages')).toBeUndefined();
    const grownNumber = whole(Buffer.from('{"messages":[1],"x":2}'));
    expect(parseAppended(grownNumber, Buffer.from('{"messages":[12],"x":2}'), 'messages')).toBeUndefined();
    expect(parseAppended(grownNumber, Buffer.from('{"messages":[123],"x":2}'), 'messages')).toBeUndefined();
  });

  it('gives a body no layout when its new items are not compact, and still the right body', () => {
    const previous = whole(bytes(bodyOf([{ role: 'user', content: 'a' }])));
    const raw = Buffer.from(
      JSON.stringify(bodyOf([{ role: 'user', content: 'a' }])).replace(
        '"a"}]',
        '"a"}, {"role": "assistant"}]',
      ),
    );
    const parsed = parseAppended(previous, raw, 'messages');
    expect(parsed?.body).toEqual(JSON.parse(raw.toString()));
    expect(parsed?.layout).toBeUndefined();
  });

  it('is the body JSON.parse reads, or nothing, for any edit of the earlier bytes', () => {
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 6 }),
        fc.array(
          fc.record({
            at: fc.nat(),
            remove: fc.nat({ max: 4 }),
            insert: fc.constantFrom(
              ',',
              ']',
              '[',
              '"',
              '1',
              '23',
              ',{}',
              ',"max_tokens":1',
              '"model":"m",',
              '}',
              ',"x"',
              '}',
              ' ',
              ',[1]',
            ),
          }),
          { minLength: 1, maxLength: 3 },
        ),
        (messages, edits) => {
          const previous = whole(bytes(bodyOf(messages)));
          let text = previous.raw.toString('utf8');
          for (const { at, remove, insert } of edits) {
            const position = at % (text.length + 1);
            text = text.slice(0, position) + insert + text.slice(position + remove);
          }
          const raw = Buffer.from(text);
          const parsed = parseAppended(previous, raw, 'messages');
          if (parsed === undefined) return;
          // What the proxy parses whole: the bytes (an edit may split a surrogate pair).
          expect(parsed.body).toEqual(JSON.parse(raw.toString('utf8')));
          if (parsed.layout) expect(parsed.layout).toEqual(layoutOf(raw, parsed.body, 'messages'));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('follows a conversation turn after turn, each body equal to its whole parse', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(message, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 6 }),
        (turns) => {
          let messages: unknown[] = [];
          let previous = whole(bytes(bodyOf(messages)));
          for (const turn of turns) {
            messages = [...messages, ...turn];
            const raw = bytes(bodyOf(messages));
            const parsed = parseAppended(previous, raw, 'messages');
            expect(parsed?.body).toEqual(JSON.parse(raw.toString()));
            expect(parsed?.layout).toBeDefined();
            previous = parsed as ParsedBody;
          }
        },
      ),
    );
  });
});

/** Field names that `Object.keys` reorders (integers), that JSON repeats, or that assignment treats apart. */
const fieldName = fc.constantFrom('1', '0', '42', '__proto__', 'model', 'messages', 'stream', 'x');

/** A body's bytes from its fields in order, names repeated as given: compact JSON, as SDKs write it. */
function textOf(fields: readonly (readonly [string, unknown])[]): Buffer {
  return Buffer.from(
    `{${fields.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`).join(',')}}`,
  );
}

/** One body read as the proxy reads a session's bodies in turn: from the last one when it can. */
function readAfter(previous: ParsedBody, raw: Buffer): ParsedBody {
  const parsed = parseAppended(previous, raw, 'messages');
  if (parsed === undefined) return whole(raw);
  const expected = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
  // Stringified, so the order of the fields counts and an inherited `__proto__` shows as missing.
  expect(JSON.stringify(parsed.body)).toBe(JSON.stringify(expected));
  expect(Object.getPrototypeOf(parsed.body)).toBe(Object.prototype);
  // The layout is the bytes' own: the compact serialization in its field order is exactly them.
  if (parsed.layout) expect(parsed.layout).toEqual(layoutOf(raw, expected, 'messages', parsed.layout.keys));
  return parsed;
}

describe('parseAppended with field names JSON.parse treats apart', () => {
  it('drops a trailing field named "1" when the client no longer sends it', () => {
    const first = [{ role: 'user', content: 'a' }];
    const second = [...first, { role: 'assistant', content: 'b' }];
    const third = [...second, { role: 'user', content: 'c' }];
    const tail = [
      ['stream', true],
      ['max_tokens', 9],
    ] as const;
    const earlier = whole(textOf([['model', 'm'], ['messages', first], ...tail]));
    // The last field replaced by one named "1", which `Object.keys` lists first.
    const withOne = parseAppended(
      earlier,
      textOf([
        ['model', 'm'],
        ['messages', second],
        ['stream', true],
        ['1', 'x'],
      ]),
      'messages',
    );
    expect(withOne?.layout).toBeDefined();
    const raw = textOf([['model', 'm'], ['messages', third], ...tail]);
    const parsed = parseAppended(withOne as ParsedBody, raw, 'messages');
    expect(parsed?.body).not.toHaveProperty('1');
    expect(parsed?.body).toEqual(JSON.parse(raw.toString()));
  });

  it('is the body JSON.parse reads for integer, repeated and "__proto__" names in every position', () => {
    const field = fc.tuple(
      fieldName,
      fc.oneof(fc.integer(), fc.string({ maxLength: 3 }), fc.constant({ a: 1 })),
    );
    const turn = fc.record({
      added: fc.array(message, { maxLength: 2 }),
      // The fields after the conversation this turn: the first `keepAfter` kept, then new ones.
      after: fc.array(field, { maxLength: 2 }),
      keepAfter: fc.nat({ max: 3 }),
      // An item whose own fields are such names too.
      item: fc.option(fc.array(field, { maxLength: 3 }), { nil: undefined }),
    });
    fc.assert(
      fc.property(
        fc.array(field, { maxLength: 2 }),
        fc.array(turn, { minLength: 2, maxLength: 8 }),
        (before, turns) => {
          let messages: unknown[] = [];
          let after: (readonly [string, unknown])[] = [['stream', true]];
          let previous = whole(textOf([...before, ['messages', messages], ...after]));
          for (const step of turns) {
            const item = step.item && JSON.parse(textOf([['role', 'user'], ...step.item]).toString());
            messages = [...messages, ...step.added, ...(item ? [item] : [])];
            after = [...after.slice(0, step.keepAfter), ...step.after];
            previous = readAfter(previous, textOf([...before, ['messages', messages], ...after]));
          }
        },
      ),
      { numRuns: 3000 },
    );
  });
});
