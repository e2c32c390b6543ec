import { describe, expect, it } from 'vitest';
import { CompactError } from '../model/errors.js';
import type { Message } from '../model/messages.js';
import { createAnchoredCounter } from './anchored-counter.js';
import { createIncrementalCounter } from './incremental-counter.js';
import type { TokenCounter } from './token-counter.js';

// One token per character makes the local counts easy to follow.
const characters: TokenCounter = {
  specificationVersion: 'v1',
  name: 'characters',
  countText: (text) => text.length,
};
const local = createIncrementalCounter(characters);

const text = (length: number, role: Message['role'] = 'user'): Message => ({
  role,
  content: 'x'.repeat(length),
});

/** A provider whose tokenizer gives `ratio` tokens per local token and adds `overhead` per request. */
function provider(ratio: number, overhead: number) {
  return (messages: readonly Message[], system?: string) =>
    Math.round(overhead + ratio * local.count(messages, system));
}

describe('createAnchoredCounter', () => {
  it('counts locally before the first report', () => {
    const anchored = createAnchoredCounter({ counter: characters });
    const messages = [text(100)];
    expect(anchored.count(messages, 'system')).toBe(local.count(messages, 'system'));
    expect(anchored.name).toBe('anchored-characters');
    expect(anchored.calibration()).toEqual({
      deltaRatio: 1,
      overallRatio: 1,
      anchorTokens: undefined,
      reports: 0,
    });
  });

  it('returns the reported number for the request it was told about', () => {
    const anchored = createAnchoredCounter({ counter: characters });
    const messages = [text(100)];
    anchored.observe({ prompt_tokens: 777 }, messages);
    expect(anchored.count(messages)).toBe(777);
  });

  it.each([
    ['OpenAI prompt_tokens', { prompt_tokens: 900 }, 900],
    [
      'Anthropic input plus cache creation plus cache read',
      { input_tokens: 100, cache_creation_input_tokens: 300, cache_read_input_tokens: 500 },
      900,
    ],
    ['Anthropic with null cache fields', { input_tokens: 900, cache_creation_input_tokens: null }, 900],
  ])('reads %s', (_case, usage, expected) => {
    const anchored = createAnchoredCounter({ counter: characters });
    anchored.observe(usage, [text(10)]);
    expect(anchored.calibration().anchorTokens).toBe(expected);
  });

  it('ignores a report without prompt tokens', () => {
    const anchored = createAnchoredCounter({ counter: characters });
    anchored.observe({ output_tokens: 50 }, [text(10)]);
    expect(anchored.calibration().reports).toBe(0);
  });

  it('adds the new messages as counted locally until a delta has been seen', () => {
    const anchored = createAnchoredCounter({ counter: characters });
    const messages = [text(196)]; // 200 local tokens with the message overhead
    anchored.observe({ prompt_tokens: 300 }, messages);
    const grown = [...messages, text(96, 'assistant')]; // +100 local tokens
    expect(anchored.calibration().overallRatio).toBeCloseTo(1.5);
    expect(anchored.calibration().deltaRatio).toBe(1);
    expect(anchored.count(grown)).toBe(300 + 100);
  });

  it('learns the delta ratio from successive reports, apart from a fixed per-request overhead', () => {
    const anchored = createAnchoredCounter({ counter: characters });
    const reported = provider(1.25, 300);
    const messages: Message[] = [text(1000)];
    anchored.observe({ prompt_tokens: reported(messages) }, messages);
    messages.push(text(1000, 'assistant'));
    anchored.observe({ prompt_tokens: reported(messages) }, messages);
    expect(anchored.calibration().deltaRatio).toBeCloseTo(1.25, 2);
    // The overall ratio is inflated by the overhead; the delta ratio is not.
    expect(anchored.calibration().overallRatio).toBeGreaterThan(1.35);
    messages.push(text(3000));
    expect(Math.abs(anchored.count(messages) - reported(messages))).toBeLessThanOrEqual(2);
  });

  it('weights samples by their local delta, so a short message moves the ratio little', () => {
    const anchored = createAnchoredCounter({ counter: characters, decay: 1 });
    const messages: Message[] = [text(96)]; // 100
    anchored.observe({ prompt_tokens: 100 }, messages);
    messages.push(text(996)); // +1000 at ratio 1.0
    anchored.observe({ prompt_tokens: 1100 }, messages);
    messages.push(text(6)); // +10 at ratio 2.0
    anchored.observe({ prompt_tokens: 1120 }, messages);
    expect(anchored.calibration().deltaRatio).toBeCloseTo((1000 * 1 + 10 * 2) / 1010, 6);
  });

  it('forgets old samples at the decay rate', () => {
    const anchored = createAnchoredCounter({ counter: characters, decay: 0 });
    const messages: Message[] = [text(96)];
    anchored.observe({ prompt_tokens: 100 }, messages);
    messages.push(text(96));
    anchored.observe({ prompt_tokens: 200 }, messages); // ratio 1.0
    messages.push(text(96));
    anchored.observe({ prompt_tokens: 350 }, messages); // ratio 1.5
    expect(anchored.calibration().deltaRatio).toBeCloseTo(1.5, 6);
  });

  it.each([
    ['too high', 5000, 2],
    ['too low', 110, 0.5],
  ])('clamps a ratio that is %s into the range', (_case, secondReport, expected) => {
    const anchored = createAnchoredCounter({ counter: characters, ratioRange: [0.5, 2] });
    const messages: Message[] = [text(96)];
    anchored.observe({ prompt_tokens: 100 }, messages);
    messages.push(text(96));
    anchored.observe({ prompt_tokens: secondReport }, messages);
    expect(anchored.calibration().deltaRatio).toBe(expected);
  });

  it.each([
    ['the history was rewritten', (messages: Message[]) => [text(50), ...messages.slice(1)], 'system'],
    ['the history was cut', (messages: Message[]) => messages.slice(0, 1), 'system'],
    ['the system prompt changed', (messages: Message[]) => [...messages], 'another system'],
  ])('falls back to local count × overall ratio when %s', (_case, change, system) => {
    const anchored = createAnchoredCounter({ counter: characters });
    const messages = [text(400), text(400, 'assistant')];
    anchored.observe({ prompt_tokens: 1300 }, messages, 'system');
    const overallRatio = 1300 / local.count(messages, 'system');
    const changed = change(messages);
    expect(anchored.count(changed, system)).toBe(Math.round(overallRatio * local.count(changed, system)));
  });

  it('still extends the anchor when the system prompt is an equal block list in a new array', () => {
    const anchored = createAnchoredCounter({ counter: characters });
    const system = () => [{ type: 'text' as const, text: 'be brief' }];
    const messages = [text(400)];
    anchored.observe({ prompt_tokens: 500 }, messages, system());
    expect(anchored.count(messages, system())).toBe(500);
    expect(anchored.count(messages, [{ type: 'text', text: 'be verbose' }])).not.toBe(500);
  });

  it('does not learn a delta from a report on a rewritten history, but re-anchors to it', () => {
    const anchored = createAnchoredCounter({ counter: characters });
    const messages = [text(400), text(400, 'assistant')];
    anchored.observe({ prompt_tokens: 1000 }, messages);
    const compacted = [text(96)];
    anchored.observe({ prompt_tokens: 150 }, compacted);
    expect(anchored.count(compacted)).toBe(150);
    expect(anchored.calibration().deltaRatio).toBe(1);
  });

  it('reset forgets the anchor and the ratios', () => {
    const anchored = createAnchoredCounter({ counter: characters });
    const messages = [text(100)];
    anchored.observe({ prompt_tokens: 999 }, messages);
    anchored.reset();
    expect(anchored.count(messages)).toBe(local.count(messages));
    expect(anchored.calibration().reports).toBe(0);
  });

  it.each([
    ['decay above 1', { decay: 1.5 }],
    ['a negative decay', { decay: -0.1 }],
    ['a ratio range starting at 0', { ratioRange: [0, 2] as const }],
    ['an inverted ratio range', { ratioRange: [2, 1] as const }],
  ])('rejects %s', (_case, options) => {
    let thrown: unknown;
    try {
      createAnchoredCounter({ counter: characters, ...options });
    } catch (error) {
      thrown = error;
    }
    expect(CompactError.isInstance(thrown)).toBe(true);
    expect(thrown).toMatchObject({ code: 'INVALID_OPTIONS' });
  });
});
