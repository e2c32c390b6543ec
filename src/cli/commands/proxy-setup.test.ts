import { describe, expect, it } from 'vitest';
import { type ProxyArgValues, summaryBaseURL, thresholdOptions } from './proxy-setup.js';

describe('summaryBaseURL', () => {
  const upstreams = {
    anthropicUpstream: 'http://anthropic.test',
    openaiUpstream: 'http://openai.test',
    geminiUpstream: undefined,
  };

  it('sends each summary model to its own provider upstream', () => {
    expect(summaryBaseURL('anthropic:claude-haiku-4-5', upstreams)).toBe('http://anthropic.test');
    expect(summaryBaseURL('openai:gpt-5-mini', upstreams)).toBe('http://openai.test/v1');
    expect(
      summaryBaseURL('gemini:gemini-2.5-flash', { ...upstreams, geminiUpstream: 'http://gemini.test' }),
    ).toBe('http://gemini.test');
  });

  it("never sends a Gemini model's key to the OpenAI upstream: without a Gemini one, its SDK's default", () => {
    expect(summaryBaseURL('gemini:gemini-2.5-flash', upstreams)).toBeUndefined();
  });
});

describe('thresholdOptions', () => {
  const MiB = 1024 * 1024;

  it("charges a small --max-memory's entries against what Node and V8 leave of it", () => {
    expect(thresholdOptions({ 'max-memory': '128MiB' } as ProxyArgValues).maxMemoryBytes).toBe(48 * MiB);
  });

  it('charges against the whole of the default budget', () => {
    expect(thresholdOptions({} as ProxyArgValues).maxMemoryBytes).toBe(512 * MiB);
  });
});
