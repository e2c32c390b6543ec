import { describe, expect, it } from 'vitest';
import { createCompactor } from '../../compactor.js';
import { parseConversation, serializeConversation } from '../../conversation/parse-conversation.js';
import { validateMessages } from '../../conversation/validate.js';
import { geminiSession, nonBlockingResponses, protoNamed } from './gemini-session.test-utils.js';

/** A `{ contents }` file compacted by micro and written back as a caller of the library does. */
async function compactedFile(contents: unknown[]) {
  const parsed = parseConversation(JSON.stringify({ contents }));
  const { conversation } = parsed;
  const result = await createCompactor({ micro: { cacheAware: false } }).maybeCompact(conversation.messages);
  expect(result.layer).toBe('micro');
  const text = serializeConversation({ ...conversation, messages: result.messages }, parsed.format, {
    compactedFrom: conversation.messages,
  });
  return (JSON.parse(text) as { contents: { parts: Record<string, unknown>[] }[] }).contents;
}

describe('serializeConversation of a compacted Gemini conversation', () => {
  // Responses with ids of their own answering calls without (paired by name), as non-blocking
  // calls stream them: the masked one must still say it is that response and that more follow.
  it("keeps a masked response's own id, willContinue and scheduling", async () => {
    const contents = await compactedFile(nonBlockingResponses(geminiSession(8, { ids: false })));
    const masked = contents[2]!.parts[0]!.functionResponse as Record<string, unknown>;
    expect(JSON.stringify(masked.response)).toMatch(/archiv|recall|Previous/i);
    expect(masked).toMatchObject({
      id: 'r2',
      name: 'read_file',
      willContinue: true,
      scheduling: 'WHEN_IDLE',
    });
    expect(validateMessages(contents, { format: 'gemini' })).toEqual([]);
  });

  it('keeps them under their proto names (will_continue) in a proto-named file', async () => {
    const proto = JSON.stringify(protoNamed(nonBlockingResponses(geminiSession(8, { ids: false }))));
    const contents = await compactedFile(JSON.parse(proto.replaceAll('"willContinue"', '"will_continue"')));
    const masked = contents[2]!.parts[0]!.function_response as Record<string, unknown>;
    expect(JSON.stringify(masked.response)).toMatch(/archiv|recall|Previous/i);
    expect(masked).toMatchObject({ id: 'r2', will_continue: true, scheduling: 'WHEN_IDLE' });
    expect(masked).not.toHaveProperty('willContinue');
  });
});
