import { describe, expect, it } from 'vitest';
import { createMemoryArchiveStore } from '../../archive/memory-archive-store.js';
import { createCompactor } from '../../compactor.js';
import { validateMessages } from '../../conversation/validate.js';
import { compactRequest } from '../../request/compact-request-once.js';
import { detectRequestFormat } from '../../request/request-format.js';
import { geminiBody, nonBlockingResponses, protoNamed, screenshot } from './gemini-session.test-utils.js';

const forceMicro = { micro: { cacheAware: false } } as const;

describe('compactRequest on a Gemini generateContent body', () => {
  it('detects the format from `contents`', () => {
    expect(detectRequestFormat(geminiBody(1))).toBe('gemini');
  });

  it('changes only `contents`: same keys in the same order, other fields the same objects', async () => {
    const body = geminiBody(8);
    const snapshot = structuredClone(body);
    const result = await compactRequest(body, forceMicro);
    expect(result.format).toBe('gemini');
    expect(result.layer).toBe('micro');
    expect(body).toEqual(snapshot);
    expect(Object.keys(result.body)).toEqual(Object.keys(body));
    for (const key of ['systemInstruction', 'tools', 'generationConfig', 'cachedContent'] as const) {
      expect(result.body[key]).toBe(body[key]);
    }
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
    expect(validateMessages(result.body.contents, { format: 'gemini' })).toEqual([]);
  });

  it('masks older function responses and keeps every signature and the current step as it came', async () => {
    const body = geminiBody(8, { ids: false });
    const { body: compacted } = await compactRequest(body, forceMicro);
    const masked = compacted.contents[2]!.parts[0]!.functionResponse!;
    expect(masked.name).toBe('read_file');
    expect(masked.id).toBeUndefined();
    expect(String(masked.response.output)).toMatch(/archiv|recall/i);
    compacted.contents.forEach((content, index) => {
      if (content.role === 'model') expect(content.parts).toEqual(body.contents[index]!.parts);
    });
    expect(compacted.contents.at(-1)).toBe(body.contents.at(-1));
  });

  it("counts the images of a response's own parts, and masks them with it into the archive", async () => {
    const archive = createMemoryArchiveStore();
    const body = geminiBody(8, { images: true });
    const result = await compactRequest(body, { ...forceMicro, archive, sessionId: 's' });
    const withoutImages = await compactRequest(geminiBody(8), forceMicro);
    expect(result.tokensBefore).toBeGreaterThan(withoutImages.tokensBefore);
    const masked = result.body.contents[2]!.parts[0]!.functionResponse!;
    expect(String(masked.response.output)).toMatch(/archiv|recall/i);
    expect(masked.parts).toBeUndefined();
    // The current step goes out as it came, its image in place.
    expect(result.body.contents.at(-1)).toBe(body.contents.at(-1));
    const archived = JSON.stringify(await archive.list('s'));
    expect(archived).toContain(screenshot(0));
    expect(validateMessages(result.body.contents, { format: 'gemini' })).toEqual([]);
  });

  it('masks older function responses written in proto names, in proto names', async () => {
    const body = protoNamed(geminiBody(8));
    const result = await compactRequest(body, forceMicro);
    expect(result.layer).toBe('micro');
    const [masked] = result.body.contents[2]!.parts;
    expect(Object.keys(masked!)).toEqual(['function_response']);
    expect(String(JSON.stringify(masked))).toMatch(/archiv|recall/i);
    expect(JSON.stringify(result.body.contents)).not.toMatch(
      /"(functionCall|functionResponse|thoughtSignature)"/,
    );
    result.body.contents.forEach((content, index) => {
      if (content.role === 'model') expect(content.parts).toEqual(body.contents[index]!.parts);
    });
    expect(validateMessages(result.body.contents, { format: 'gemini' })).toEqual([]);
  });

  it("keeps a masked response's own fields beside `response` (its id, willContinue, scheduling)", async () => {
    // Responses with ids of their own answering calls without (paired by name), as non-blocking
    // calls stream them: the masked one must still say it is that response and that more follow.
    const body = { ...geminiBody(8, { ids: false }) };
    body.contents = nonBlockingResponses(body.contents);
    const result = await compactRequest(body, forceMicro);
    const masked = result.body.contents[2]!.parts[0]!.functionResponse!;
    expect(String(masked.response.output)).toMatch(/archiv|recall/i);
    expect(masked).toMatchObject({
      id: 'r2',
      name: 'read_file',
      willContinue: true,
      scheduling: 'WHEN_IDLE',
    });
    const proto = await compactRequest(protoNamed(body), forceMicro);
    expect(proto.body.contents[2]!.parts[0]).toMatchObject({
      function_response: { id: 'r2', will_continue: true, scheduling: 'WHEN_IDLE' },
    });
    expect(validateMessages(result.body.contents, { format: 'gemini' })).toEqual([]);
  });

  it('summarizes a conversation written in proto names into a request the API takes', async () => {
    const result = await compactRequest(protoNamed(geminiBody(20)), {
      thresholds: { mid: 1000, hard: 2000 },
    });
    expect(result.layer).toBe('hard');
    expect(JSON.stringify(result.body.contents)).not.toContain('gemini_part');
    expect(validateMessages(result.body.contents, { format: 'gemini' })).toEqual([]);
  });

  it('counts the system instruction and declarations written under their proto names as the JSON ones', async () => {
    // A long system prompt, as Gemini CLI's is: left out, the count would miss all of it.
    const systemInstruction = { parts: [{ text: 'You are an interactive CLI agent. '.repeat(300) }] };
    const { systemInstruction: _short, tools, ...rest } = geminiBody(2);
    const protoNamed = {
      ...rest,
      system_instruction: systemInstruction,
      tools: tools.map(({ functionDeclarations }) => ({ function_declarations: functionDeclarations })),
    };
    const camel = await compactRequest({ ...geminiBody(2), systemInstruction }, forceMicro);
    const proto = await compactRequest(protoNamed, forceMicro);
    expect(proto.tokensBefore).toBe(camel.tokensBefore);
  });

  it('anchors the count on usageMetadata.promptTokenCount', async () => {
    const compactor = createCompactor({ thresholds: { mid: 50_000, hard: 100_000 } });
    const body = geminiBody(2, { lines: 5 });
    await compactor.compactRequest(body);
    const next = {
      ...body,
      contents: [
        ...body.contents,
        { role: 'model', parts: [{ text: 'ok' }] },
        { role: 'user', parts: [{ text: 'go on' }] },
      ],
    };
    const anchored = await compactor.compactRequest(next, { usage: { promptTokenCount: 60_000 } });
    expect(anchored.tokensBefore).toBeGreaterThan(60_000);
  });

  it('returns the body itself when nothing needs compacting', async () => {
    const body = geminiBody(1, { lines: 5 });
    const result = await compactRequest(body);
    expect(result.body).toBe(body);
  });

  it('counts tools declared as functionDeclarations', async () => {
    const compactor = createCompactor();
    const withTools = await compactor.compactRequest(geminiBody(1, { lines: 5 }));
    const { tools: _tools, ...bare } = geminiBody(1, { lines: 5 });
    const without = await createCompactor().compactRequest(bare);
    expect(withTools.tokensBefore).toBeGreaterThan(without.tokensBefore);
  });

  it('names the path of a broken rule in the body', async () => {
    const body = { ...geminiBody(2), contents: [{ role: 'user', parts: 'hi' }] };
    const error = await compactRequest(body, { force: 'hard' }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'INVALID_TRANSCRIPT', path: 'contents[0].parts' });
    expect((error as Error).message).toBe('contents[0].parts: parts must be an array, got string');
  });

  it('names a content it cannot read even after a problem it can read past', async () => {
    const contents = [{ role: 'tool', parts: [{ text: 'hi' }] }, 'not a content'];
    const error = await compactRequest({ ...geminiBody(2), contents }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'INVALID_TRANSCRIPT', path: 'contents[1]' });
    expect((error as Error).message).toBe('contents[1]: content must be an object, got string');
  });
});
