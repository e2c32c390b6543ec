import { describe, expect, it } from 'vitest';
import { validateMessages } from '../conversation/validate.js';
import type { Message } from '../model/messages.js';
import { compactRequest } from './compact-request-once.js';
import { claudeCodeRequest } from './request-fixtures.test-utils.js';
import { placeSystemMessages, splitSystemMessages } from './system-messages.js';

const user = (text: string): Message => ({ role: 'user', content: text });
const assistant = (text: string): Message => ({ role: 'assistant', content: text });
const system = (text: string) => ({ role: 'system', content: text });

describe('mid-conversation system messages', () => {
  const body = [user('u0'), system('s1'), assistant('a1'), user('u2'), system('s-last')];

  it('go back at their own places when the compaction kept every message in place', () => {
    const places = splitSystemMessages(body);
    expect(places.conversation.map((message) => message.content)).toEqual(['u0', 'a1', 'u2']);
    expect(places.bodyIndex).toEqual([0, 2, 3]);
    const rewritten = [user('u0'), assistant('a1 (shortened)'), user('u2')];
    expect(placeSystemMessages(rewritten, places, { inPlace: true })).toEqual([
      rewritten[0],
      system('s1'),
      rewritten[1],
      rewritten[2],
      system('s-last'),
    ]);
  });

  it('go before the first surviving message after theirs when a hard compaction summarized it', () => {
    const places = splitSystemMessages(body);
    const kept = places.conversation[2]!;
    const compacted = [user('<context_summary>…'), assistant('ok'), kept];
    expect(placeSystemMessages(compacted, places)).toEqual([
      compacted[0],
      compacted[1],
      system('s1'),
      kept,
      system('s-last'),
    ]);
  });

  it('keep one copy of a note a hard compaction displaced and a later turn repeats', () => {
    const nudge = system('The user has not heard from you in a while.');
    const places = splitSystemMessages([
      user('u0'),
      system('# Environment'),
      assistant('a1'),
      nudge,
      user('u2'),
      assistant('a3'),
      { ...nudge },
      user('u4'),
    ]);
    const kept = places.conversation.slice(-2);
    const compacted = [user('<context_summary>…'), assistant('ok'), ...kept];
    expect(placeSystemMessages(compacted, places)).toEqual([
      compacted[0],
      compacted[1],
      system('# Environment'),
      kept[0],
      nudge,
      kept[1],
    ]);
    // Kept in place (micro, mid), every copy stays where it stood.
    expect(placeSystemMessages(places.conversation, places, { inPlace: true })).toHaveLength(8);
  });

  it('a Claude Code request with a trailing system message keeps it last and unchanged through hard', async () => {
    const request = claudeCodeRequest();
    const trailing = { role: 'system' as const, content: 'Reminder: the user is waiting.' };
    request.messages.push(trailing);
    const result = await compactRequest(request, { force: 'hard' });
    expect(result.layer).toBe('hard');
    const after = result.body.messages as Array<Message | typeof trailing>;
    expect(after.at(-1)).toBe(trailing);
    expect(after.filter((message) => message.role === 'system')).toEqual([request.messages[1], trailing]);
    const conversation = after.filter((message): message is Message => message.role !== 'system');
    expect(validateMessages(conversation)).toEqual([]);
  });
});
