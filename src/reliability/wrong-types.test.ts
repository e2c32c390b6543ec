/**
 * Wrong types at every path: one realistic request body per wire format (system, tools, text, tool
 * calls and results, thinking or reasoning, images; see wrong-types.test-utils.ts), and at every
 * JSON path in it — each key of each object, each item of each array, nested — the value replaced
 * by each value of another type (null, a number, a string, a boolean, an array, an object; for a
 * string also other strings and a very long one) or removed. Each mutated body goes through
 * `compactRequest` (thresholds low enough that micro and mid run, and `force: 'hard'`) and, read as
 * a conversation file by `parseConversation`, through `createCompactor().maybeCompact` (auto and
 * hard). Each run ends in a result whose conversation breaks no rule the mutated input did not
 * already break (`validateMessages` with `relativeTo`) and whose other fields are the input's, or
 * in a `CompactError` with a code, a message under 2,000 characters and a path — for
 * `compactRequest` and `parseConversation` the path that changed, one inside it or one around it —
 * never a raw TypeError or any other error.
 *
 * Every path is tried with at least one wrong value; the rest of the cross product is sampled with
 * a fixed seed (WRONG_TYPES_SEED; WRONG_TYPES_SHARE=1 tries all of it, about a minute).
 */
import { describe, expect, it } from 'vitest';
import { createMemoryArchiveStore } from '../core/archive/memory-archive-store.js';
import { createCompactor } from '../core/compactor.js';
import { parseConversation } from '../core/conversation/parse-conversation.js';
import { validateMessages } from '../core/conversation/validate.js';
import { CompactError } from '../core/model/errors.js';
import type { WireFormat } from '../core/model/wire-format.js';
import { dialectOf } from '../core/wire/dialects.js';
import { bodies, type Json, mutatedBodies, pathCount } from './wrong-types.test-utils.js';

const seed = Number(process.env.WRONG_TYPES_SEED ?? 20261207);
/** The share of (path, value) pairs tried beyond the first value of each path. */
const share = Number(process.env.WRONG_TYPES_SHARE ?? 0.35);

/** Thresholds under every body's size: mid runs unforced (hard stays out of reach), hard when forced. */
const compactorOptions = () => ({
  thresholds: { mid: 1500, hard: 1_000_000 },
  micro: { cacheAware: false, minTokens: 1, keepTurns: 1 },
  mid: { keepToolResults: 1, maxAssistantChars: 40, maxToolInputTokens: 5 },
  hard: { retryDelayMs: 0, maxAttempts: 1 },
  archive: createMemoryArchiveStore(),
  sessionId: 'wrong-types',
});

/** An error message quotes a value's head, never the whole of a long one. */
const MAX_MESSAGE_LENGTH = 2000;

/** What one run ended in, for the summary line. */
const outcomes = new Map<string, number>();
const count = (outcome: string) => outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);

/**
 * A CompactError with a code, a short message and a path; when the error is about the body's own
 * values (`mutated`: the path that was changed), the path is that one, one inside it or one around it.
 */
function expectCompactError(error: unknown, where: string, mutated?: string): void {
  if (!CompactError.isInstance(error)) {
    const text = error instanceof Error ? `${error.name}: ${error.message}\n${error.stack}` : String(error);
    expect.fail(`${where}: expected a CompactError, got ${text}`);
  }
  expect(error.code, where).toMatch(/^[A-Z_]+$/);
  expect(error.path, `${where}: the error says where (${error.message})`).toBeTruthy();
  expect(error.message.length, `${where}: a short message`).toBeLessThan(MAX_MESSAGE_LENGTH);
  count(`error ${error.code}`);
  // The file itself (`request.json`) is where a conversation that is not there is missing.
  const path = (error.path ?? '').replace(/^request\.json(: )?/, '');
  if (mutated !== undefined && !path.startsWith(mutated) && !mutated.startsWith(path))
    expect.fail(`${where}: the error names ${path}, not where the value changed (${error.message})`);
}

/** One mutated body through compactRequest (auto and forced hard). */
async function throughRequest(format: WireFormat, body: Json, where: string, mutated: string) {
  const field = dialectOf(format).conversationField;
  for (const force of [undefined, 'hard'] as const) {
    const run = `${where} compactRequest(${force ?? 'auto'})`;
    try {
      const compactor = createCompactor(compactorOptions());
      const result = await compactor.compactRequest(body as object, { format, ...(force ? { force } : {}) });
      count(`result ${result.layer}`);
      const sent = result.body as Record<string, Json>;
      const input = body as Record<string, Json>;
      expect(Object.keys(sent), run).toEqual(Object.keys(input));
      for (const key of Object.keys(input))
        if (key !== field) expect(sent[key], `${run}: ${key}`).toBe(input[key]);
      const problems = validateMessages(sent[field], {
        format,
        systemMessages: true,
        ...(format === 'anthropic' && input.system !== undefined ? { system: input.system } : {}),
        relativeTo: input[field],
      });
      if (problems.length > 0)
        expect.fail(`${run}: the output breaks a new rule: ${JSON.stringify(problems)}`);
    } catch (error) {
      if (error instanceof Error && error.name === 'AssertionError') throw error;
      expectCompactError(error, run, mutated);
    }
  }
}

/**
 * The body as a conversation file holds it, and where a body path is in the file: a file has no
 * Anthropic mid-conversation system messages (only a request has; the CLI reads a request through
 * compactRequest).
 */
function asConversationFile(
  format: WireFormat,
  body: Json,
): { file: Json; pathOf: (path: string) => string } {
  const { messages } = body as Record<string, Json>;
  if (format !== 'anthropic' || !Array.isArray(messages)) return { file: body, pathOf: (path) => path };
  const kept = messages.flatMap((message, index) =>
    typeof message === 'object' && message !== null && !Array.isArray(message) && message.role === 'system'
      ? []
      : [index],
  );
  return {
    file: { ...(body as Record<string, Json>), messages: kept.map((index) => messages[index] as Json) },
    pathOf: (path) =>
      path.replace(/^messages\[(\d+)\]/, (_, index: string) => `messages[${kept.indexOf(Number(index))}]`),
  };
}

/** The same body read as a conversation file, then compacted from the parsed messages (auto and hard). */
async function throughParsed(format: WireFormat, body: Json, where: string, mutated: string) {
  let parsed: ReturnType<typeof parseConversation>;
  const { file, pathOf } = asConversationFile(format, body);
  try {
    parsed = parseConversation(JSON.stringify(file), { format, source: 'request.json' });
  } catch (error) {
    expectCompactError(error, `${where} parseConversation`, pathOf(mutated));
    return;
  }
  const { messages, system } = parsed.conversation;
  for (const force of [undefined, 'hard'] as const) {
    const run = `${where} maybeCompact(${force ?? 'auto'})`;
    try {
      const result = await createCompactor(compactorOptions()).maybeCompact(messages, {
        ...(system === undefined ? {} : { system }),
        ...(force ? { force } : {}),
      });
      count(`parsed result ${result.layer}`);
      const problems = validateMessages(result.messages, {
        systemMessages: true,
        ...(system === undefined ? {} : { system }),
        relativeTo: messages,
      });
      if (problems.length > 0)
        expect.fail(`${run}: the output breaks a new rule: ${JSON.stringify(problems)}`);
    } catch (error) {
      if (error instanceof Error && error.name === 'AssertionError') throw error;
      // The parsed messages are the canonical model's: their paths need not be the body's.
      expectCompactError(error, run);
    }
  }
}

describe(`a wrong type at every path of a request body (seed ${seed})`, () => {
  const formats = Object.keys(bodies) as WireFormat[];

  it.each(formats)('%s: the unmutated body compacts to a valid request', async (format) => {
    const body = bodies[format]();
    const field = dialectOf(format).conversationField;
    expect(validateMessages(body[field], { format, systemMessages: true })).toEqual([]);
    const result = await createCompactor(compactorOptions()).compactRequest(body, { format });
    expect(result.layer).not.toBe('none');
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
  });

  it.each(formats)('%s: each mutation ends in a result or a CompactError with a path', async (format) => {
    const body = bodies[format]();
    const paths = new Set<string>();
    let runs = 0;
    const failures: string[] = [];
    for (const mutated of mutatedBodies(body, { seed: seed ^ formats.indexOf(format), share })) {
      const where = `${format} ${mutated.path} = ${mutated.mutation}:`;
      try {
        await throughRequest(format, mutated.body, where, mutated.path);
        await throughParsed(format, mutated.body, where, mutated.path);
      } catch (error) {
        failures.push(error instanceof Error ? error.message : String(error));
      }
      paths.add(mutated.path);
      runs += 1;
    }
    console.info(`wrong types, ${format}: ${paths.size} paths, ${runs} mutated bodies`);
    expect(paths.size).toBe(pathCount(body));
    // Every failure at once, so one run shows each reader that needs a fix.
    expect(failures).toEqual([]);
  });

  it('reports what the runs ended in', () => {
    console.info('wrong types:', Object.fromEntries([...outcomes].sort()));
    expect([...outcomes.keys()].some((outcome) => outcome.startsWith('error'))).toBe(true);
  });
});
