import { describe, expect, it } from 'vitest';
import type { ArchiveItem } from '../archive/archive-store.js';
import { ArchiveIds, archiveKey, originalPrint } from './archive-ids.js';

const result = (text: string) => ({ type: 'tool_result', tool_use_id: 'call_0', content: text }) as const;
const item = (id: string, text: string): ArchiveItem => ({
  id,
  sessionId: 's',
  kind: 'tool-result',
  createdAt: 0,
  toolUseId: 'call_0',
  block: result(text),
});
const key = archiveKey('tool-result', 'call_0');

describe('ArchiveIds', () => {
  it('gives the same original the same id, and another original under the same key a new one', () => {
    const ids = new ArchiveIds();
    const first = ids.idFor(key, originalPrint(result('one'), true));
    expect(ids.idFor(key, originalPrint(result('one'), true)).id).toBe(first.id);
    const second = ids.idFor(key, originalPrint(result('two'), true));
    expect(second.id).not.toBe(first.id);
    ids.markStored([item(first.id, 'one'), item(second.id, 'two')]);
    // Both are this session's own ids for the key; no single one is "the" stored result of it.
    expect(ids.issued(key, first.id) && ids.issued(key, second.id)).toBe(true);
    expect(ids.storedId(key)).toBeUndefined();
  });

  it('without prints (ids never reused), one key keeps one id', () => {
    const ids = new ArchiveIds();
    const first = ids.idFor(key);
    expect(ids.idFor(key).id).toBe(first.id);
    ids.markStored([item(first.id, 'one')]);
    expect(ids.storedId(key)).toBe(first.id);
  });

  it('after a restart, tells apart the originals an archive holds under one key', () => {
    const ids = new ArchiveIds();
    ids.restore([item('r1', 'one'), item('r2', 'two')]);
    expect(ids.idFor(key, originalPrint(result('one'), true)).id).toBe('r1');
    expect(ids.idFor(key, originalPrint(result('two'), true)).id).toBe('r2');
    expect(ids.idFor(key, originalPrint(result('three'), true))).toEqual({ id: 'r3', known: false });
  });
});
