import { describe, expect, it } from 'vitest';
import { AgentCompactProcessor } from './compact-processor.js';

// The processor imports only types from @mastra/core, so these run on every Node the package supports.
const window = 32_000;
const progress = { type: 'data-progress', data: { percent: 50 } };
const call = { type: 'tool-call', toolCallId: 'call_1', toolName: 'read_file', input: { path: 'a.ts' } };
const prompt = () => [
  { role: 'system', content: 'You read files.' },
  { role: 'user', content: [{ type: 'text', text: 'Read a.ts' }] },
  { role: 'assistant', content: [{ type: 'text', text: 'Reading.' }, call, progress] },
  { role: 'user', content: [{ type: 'text', text: 'Go on.' }] },
];

async function process(processor: AgentCompactProcessor, messages: unknown[]) {
  const result = (await processor.processLLMRequest({ prompt: messages } as never)) as { prompt: unknown };
  return result.prompt as { role: string; content: unknown }[];
}

describe('AgentCompactProcessor prompt repair', () => {
  it('answers a tool call left without its result, as the core does, and keeps an unknown part whole', async () => {
    const warnings: string[] = [];
    const processor = new AgentCompactProcessor({
      contextWindow: window,
      onWarning: (line) => warnings.push(line),
    });
    const result = await process(processor, prompt());
    expect(result.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool', 'user']);
    expect(result[3]!.content).toEqual([
      {
        type: 'tool-result',
        toolCallId: 'call_1',
        toolName: 'read_file',
        output: { type: 'error-text', value: expect.stringContaining('missing') },
      },
    ]);
    expect((result[2]!.content as unknown[])[2]).toEqual(progress);
    expect(warnings).toEqual([
      'agent-compact: prompt part type "data-progress" is not converted; it is kept whole',
      expect.stringMatching(/^agent-compact: repaired: .*"call_1"/),
    ]);
    // The unknown type is told once per processor.
    await process(processor, prompt());
    expect(warnings.filter((line) => line.includes('data-progress'))).toHaveLength(1);
  });

  it('leaves a valid prompt as it is, without warnings', async () => {
    const warnings: string[] = [];
    const processor = new AgentCompactProcessor({
      contextWindow: window,
      onWarning: (line) => warnings.push(line),
    });
    const valid = [
      { role: 'user', content: [{ type: 'text', text: 'Read a.ts' }] },
      { role: 'assistant', content: [call] },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'call_1',
            toolName: 'read_file',
            output: { type: 'text', value: 'x' },
          },
        ],
      },
    ];
    expect(await process(processor, valid)).toEqual(valid);
    expect(warnings).toEqual([]);
  });
});

describe('AgentCompactProcessor and the recall tool', () => {
  /** A prompt of eight file reads, enough for micro to replace the older results. */
  const reads = () => [
    { role: 'user', content: [{ type: 'text', text: 'Read every file.' }] },
    ...Array.from({ length: 8 }, (_, index) => [
      {
        role: 'assistant',
        content: [
          {
            type: 'tool-call',
            toolCallId: `c${index}`,
            toolName: 'read_file',
            input: { path: `${index}.ts` },
          },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: `c${index}`,
            toolName: 'read_file',
            output: {
              type: 'text',
              value: `// ${index}.ts\n${'export const value = compute(input);\n'.repeat(60)}`,
            },
          },
        ],
      },
    ]).flat(),
  ];

  it.each([
    [false, false],
    [true, true],
  ])('with recall: %s names archive ids: %s', async (recall, named) => {
    const processor = new AgentCompactProcessor({
      recall,
      thresholds: { mid: 2000, hard: 100_000 },
      micro: { keepTurns: 1, cacheAware: false, minTokens: 50 },
    });
    const text = JSON.stringify(await process(processor, reads()));
    expect(text).toContain('[Previous: used read_file');
    expect(/recall r\d+/.test(text)).toBe(named);
  });
});
