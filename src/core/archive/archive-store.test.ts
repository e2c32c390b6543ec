import { describe, expect, it } from 'vitest';
import { type ArchiveItem, groupItemsBySession } from './archive-store.js';

function item(sessionId: string, id: string): ArchiveItem {
  return { id, sessionId, kind: 'tool-result', createdAt: 0 };
}

describe('groupItemsBySession', () => {
  it('groups a put by session, keeping the order of sessions and of items within each', () => {
    const groups = groupItemsBySession([item('b', 'r1'), item('a', 'r1'), item('b', 'r2'), item('a', 'r2')]);
    expect([...groups].map(([sessionId, items]) => [sessionId, items.map(({ id }) => id)])).toEqual([
      ['b', ['r1', 'r2']],
      ['a', ['r1', 'r2']],
    ]);
  });

  it('returns no groups for an empty put', () => {
    expect(groupItemsBySession([]).size).toBe(0);
  });
});
