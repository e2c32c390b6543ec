import { describe, expect, it } from 'vitest';
import { createHeuristicCounter } from './heuristic-counter.js';
import { countToolTokens, TOOL_OVERHEAD_TOKENS, TOOLS_PREAMBLE_TOKENS } from './tool-tokens.js';

const counter = createHeuristicCounter();
const description = 'Search the repository for a regular expression and list matching lines.';
const schema = { type: 'object', properties: { pattern: { type: 'string' } }, required: ['pattern'] };
const expected =
  TOOLS_PREAMBLE_TOKENS +
  TOOL_OVERHEAD_TOKENS +
  counter.countText('grep') +
  counter.countText(description) +
  counter.countText(JSON.stringify(schema));

describe('countToolTokens', () => {
  it.each([
    ['anthropic', { name: 'grep', description, input_schema: schema }],
    ['openai chat', { type: 'function', function: { name: 'grep', description, parameters: schema } }],
    ['responses', { type: 'function', name: 'grep', description, parameters: schema, strict: true }],
  ])('counts the %s shape by name, description and schema', (_shape, tool) => {
    expect(countToolTokens([tool], counter)).toBe(expected);
  });

  it('counts server and other typed tools by their JSON', () => {
    const webSearch = { type: 'web_search_20250305', name: 'web_search', max_uses: 5 };
    expect(countToolTokens([webSearch], counter)).toBe(
      TOOLS_PREAMBLE_TOKENS + TOOL_OVERHEAD_TOKENS + counter.countText(JSON.stringify(webSearch)),
    );
  });

  it('costs nothing without tools and grows with every tool', () => {
    expect(countToolTokens(undefined, counter)).toBe(0);
    expect(countToolTokens([], counter)).toBe(0);
    const tool = { name: 'grep', description, input_schema: schema };
    expect(countToolTokens([tool, { ...tool, name: 'grep2' }], counter)).toBeGreaterThan(
      countToolTokens([tool], counter),
    );
  });
});
