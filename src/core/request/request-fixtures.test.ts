import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createCompactor } from '../compactor.js';
import { validateMessages } from '../conversation/validate.js';
import type { Message } from '../model/messages.js';
import type { SummaryModel, SummaryRequest } from '../summary/summary-model.js';
import { createHeuristicCounter } from '../tokens/heuristic-counter.js';
import { countToolTokens } from '../tokens/tool-tokens.js';
import { countFixedBreakpoints, countMessageBreakpoints } from './cache-breakpoints.js';
import { claudeCodeRequest, codexRequest } from './request-fixtures.test-utils.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '__fixtures__');

describe('whole-request fixtures', () => {
  it.each([
    ['claude-code-request.json', () => claudeCodeRequest()],
    ['codex-request.json', () => codexRequest()],
  ])('%s is the body its SDK-typed builder makes (UPDATE_FIXTURES=1 rewrites it)', (name, build) => {
    const path = join(fixtures, name);
    // One line, as a proxy log captures a request.
    if (process.env.UPDATE_FIXTURES) writeFileSync(path, `${JSON.stringify(build())}\n`);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual(build());
  });

  it('the Claude Code request carries 12 tools of about 47k characters', () => {
    const { tools } = claudeCodeRequest();
    expect(tools).toHaveLength(12);
    expect(JSON.stringify(tools).length).toBeGreaterThan(45_000);
    expect(JSON.stringify(tools).length).toBeLessThan(50_000);
  });
});

/** A summarizer that records what it was sent. */
function recordingSummarizer(requests: SummaryRequest[]): SummaryModel {
  return {
    specificationVersion: 'v1',
    provider: 'test',
    modelId: 'recording',
    async summarize(request) {
      requests.push(structuredClone(request));
      return { text: 'Summary: the failing tests were traced to module 7.' };
    },
  };
}

describe('compactRequest on real agents’ request shapes', () => {
  it('Claude Code: hard keeps every other field, the breakpoints and the continued turn', async () => {
    const body = claudeCodeRequest();
    const requests: SummaryRequest[] = [];
    const compactor = createCompactor({ contextWindow: 40_000, summarizer: recordingSummarizer(requests) });
    const result = await compactor.compactRequest(body, { force: 'hard' });
    expect(result.format).toBe('anthropic');
    expect(result.layer).toBe('hard');
    expect(Object.keys(result.body)).toEqual(Object.keys(body));
    const { messages, ...rest } = result.body;
    const { messages: _before, ...restBefore } = body;
    expect(rest).toEqual(restBefore);
    const after = messages as Message[];
    // The continued call and its result as they came: the turn is within a quarter of the window.
    expect(JSON.stringify(after.slice(-2))).toBe(JSON.stringify(body.messages.slice(-2)));
    // The mid-conversation system message is instructions: it goes back unchanged, not summarized.
    const systemMessages = after.filter((message) => (message.role as string) === 'system');
    expect(systemMessages).toEqual([body.messages[1]]);
    expect(
      countFixedBreakpoints(body.system, body.tools) + countMessageBreakpoints(after),
    ).toBeLessThanOrEqual(4);
    expect(JSON.stringify(after.at(-1))).toContain('cache_control');
    const conversation = after.filter((message) => (message.role as string) !== 'system');
    expect(validateMessages(conversation, { system: body.system })).toEqual([]);
    for (const request of requests) expect(JSON.stringify(request)).not.toContain('EqQBCkYI');
  });

  it('Codex: compacts Responses items, keeps instructions, reasoning with its call, encrypted content as it came', async () => {
    const body = codexRequest();
    const requests: SummaryRequest[] = [];
    const compactor = createCompactor({ contextWindow: 40_000, summarizer: recordingSummarizer(requests) });
    const result = await compactor.compactRequest(body, { force: 'hard' });
    expect(result.format).toBe('responses');
    expect(result.layer).toBe('hard');
    expect(Object.keys(result.body)).toEqual(Object.keys(body));
    const { input, ...rest } = result.body;
    const { input: original, ...restBefore } = body;
    expect(rest).toEqual(restBefore);
    const items = input as typeof original & unknown[];
    const before = original as unknown[];
    // The developer message stays first; the last reasoning, call and output come back byte for
    // byte (the turn is within a quarter of the window).
    expect(items[0]).toEqual(before[0]);
    expect(JSON.stringify(items.slice(-3))).toBe(JSON.stringify(before.slice(-3)));
    // Every reasoning item still sent is one of the client's, unchanged and still before its call.
    const originals = new Set(before.map((item) => JSON.stringify(item)));
    items.forEach((item, index) => {
      const record = item as { type?: string };
      if (record.type !== 'reasoning') return;
      expect(originals.has(JSON.stringify(item))).toBe(true);
      expect((items[index + 1] as { type?: string }).type).toBe('function_call');
    });
    expect(items.length).toBeLessThan(before.length);
    expect(requests.length).toBeGreaterThan(0);
    for (const request of requests) expect(JSON.stringify(request)).not.toContain('ENCRYPTED');
  });

  it('counts the tool definitions in the request (they are billed as input)', () => {
    const counter = createHeuristicCounter();
    expect(countToolTokens(claudeCodeRequest().tools, counter)).toBeGreaterThan(10_000);
  });
});
