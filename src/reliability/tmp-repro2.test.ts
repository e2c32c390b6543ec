import fc from 'fast-check';
import { it } from 'vitest';
import { createMemoryArchiveStore } from '../core/archive/memory-archive-store.js';
import { rebuildConversation } from '../core/archive/rebuild.js';
import { createCompactor } from '../core/compactor.js';
import { arbitraryValidConversation } from '../core/conversation/arbitrary-conversation.test-utils.js';
import type { Message } from '../core/model/messages.js';
import { archiveIdInPlaceholder, isPlaceholderText } from '../core/_internal/placeholder.js';
function reuseIds(messages: Message[]): Message[] {
  return JSON.parse(JSON.stringify(messages).replace(/"toolu_\d+_(\d+)"/g, '"call_$1"')) as Message[];
}
const short = (x: unknown) => JSON.stringify(x, (k, v) => (typeof v === 'string' && v.length > 50 ? `${v.slice(0, 40)}…(${v.length})` : v));
it('repro', async () => {
  const [[generated, hard, recall]] = fc.sample(fc.tuple(arbitraryValidConversation(), fc.constantFrom(400, 1500, 4000), fc.constant(true)), { seed: 5, path: '53:2:1:2:2:2:4:3:3:3:3:4:4:5:5:5:5:5:5:5:5:5:8:8:8:8:8:10:9:9:9:9:9:11:11:11:11:11:13:11:13:13:13:15:15:15:15:15:15:15:15:17:17:17:17:17:17:17:17:17:17:14:14:14:14:14:14', numRuns: 1 }) as any;
  const messages = reuseIds(generated);
  console.log('hard', hard, 'recall', recall);
  messages.forEach((m, i) => console.log('IN', i, short(m)));
  const archive = createMemoryArchiveStore();
  const compactor = createCompactor({ archive, sessionId: 'f', recall, thresholds: { mid: Math.floor(hard / 2), hard }, micro: { cacheAware: false, minTokens: 1, keepTurns: 1 }, mid: { keepToolResults: 1, maxAssistantChars: 40, maxToolInputTokens: 5 }, hard: { retryDelayMs: 0, maxAttempts: 1, maxSummaryTokens: 400 } });
  let previous: Message[] = []; let sent = 0;
  for (let end = 2; end <= messages.length; end++) {
    if (messages[end - 1]!.role !== 'user') continue;
    const input = [...previous, ...messages.slice(sent, end)];
    const result = await compactor.maybeCompact(input);
    console.log('STEP end', end, result.layer);
    result.messages.forEach((m, i) => console.log('  OUT', i, short(m)));
    const items = await archive.list('f');
    console.log('  ITEMS', items.map((it) => `${it.id}:${it.kind}:${it.toolUseId}`).join(' '));
    const rebuilt = rebuildConversation(result.messages, items);
    console.log('  OK', JSON.stringify(rebuilt) === JSON.stringify(messages.slice(0, end)));
    for (const m of result.messages) if (Array.isArray(m.content)) for (const b of m.content as any[]) if (b.type === 'tool_result' && typeof b.content === 'string' && b.content.startsWith('[Previous')) console.log('  PH', JSON.stringify(b.content.slice(-80)), isPlaceholderText(b.content), archiveIdInPlaceholder(b.content));
    previous = result.messages; sent = end;
  }
});
