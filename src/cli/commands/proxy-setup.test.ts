import { describe, expect, it } from 'vitest';
import { summaryBaseURL } from './proxy-setup.js';

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
