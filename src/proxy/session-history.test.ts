import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { nextState, sessionInput } from './session-history.js';
import { fingerprintJson } from './session-identity.js';

const client = [
  { role: 'user', content: 'Fix the tests.' },
  { role: 'assistant', content: 'Reading them.' },
];
const compacted = [{ role: 'user', content: '[compacted]' }];

describe('the session history', () => {
  it('puts recall rounds back in place of the joined answer, after instructions the client put before it', () => {
    const rounds = [
      { role: 'assistant', content: [{ type: 'tool_use', id: 'r', name: 'recall', input: { id: 'r1' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'r', content: 'recalled' }] },
      { role: 'assistant', content: 'Done.' },
    ];
    const start = [{ role: 'user', content: 'Fix the tests.' }];
    const first = sessionInput(undefined, start);
    const state = nextState(first.fingerprints, start, start, rounds);
    expect(state.recalled).toBe(3);
    const isAnswer = (item: unknown) => (item as { role?: string }).role === 'assistant';
    const reminder = { role: 'system', content: 'Keep the user posted.' };
    const next = sessionInput(
      state,
      [
        ...start,
        reminder,
        { role: 'assistant', content: 'Joined. Done.' },
        { role: 'user', content: 'Go on.' },
      ],
      isAnswer,
    );
    expect(next.conversation).toEqual([...start, reminder, ...rounds, { role: 'user', content: 'Go on.' }]);
  });

  it('continues a session whose fingerprints are the proxy’s one hash', () => {
    const first = sessionInput(undefined, client);
    const state = nextState(first.fingerprints, client, compacted);
    expect(state.covered.every((hash) => /^[0-9a-f]{16}$/.test(hash))).toBe(true);
    const next = sessionInput(state, [...client, { role: 'user', content: 'Go on.' }]);
    expect(next).toMatchObject({
      restarted: false,
      conversation: [...compacted, { role: 'user', content: 'Go on.' }],
    });
  });

  it('still reads the SHA-1 fingerprints a store kept from before, so the session goes on', () => {
    const legacy = client.map((message) =>
      createHash('sha1')
        .update(fingerprintJson(JSON.stringify(message)))
        .digest('base64'),
    );
    const next = sessionInput({ covered: legacy, sent: compacted }, [
      ...client,
      { role: 'user', content: 'Go on.' },
    ]);
    expect(next.restarted).toBe(false);
    expect(next.conversation).toEqual([...compacted, { role: 'user', content: 'Go on.' }]);
  });

  it('goes on when the client rewrote a one-block text content as its string (Claude Code 2.1.328+)', () => {
    const note = 'The user has not heard from you in a while.';
    const asBlock = [
      ...client,
      { role: 'system', content: [{ type: 'text', text: note, cache_control: { type: 'ephemeral' } }] },
    ];
    const first = sessionInput(undefined, asBlock);
    const state = nextState(first.fingerprints, asBlock, compacted);
    const next = sessionInput(state, [
      ...client,
      { role: 'system', content: note },
      { role: 'user', content: 'Go on.' },
    ]);
    expect(next.restarted).toBe(false);
    // Two blocks, or a block with more than its text, are another message.
    const twoBlocks = [
      ...client,
      {
        role: 'system',
        content: [
          { type: 'text', text: note },
          { type: 'text', text: '!' },
        ],
      },
    ];
    expect(sessionInput(state, twoBlocks).restarted).toBe(true);
  });

  it('restarts when the client rewrote a covered message', () => {
    const first = sessionInput(undefined, client);
    const state = nextState(first.fingerprints, client, compacted);
    expect(sessionInput(state, [client[0], { role: 'assistant', content: 'Other.' }]).restarted).toBe(true);
  });
});
