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
    // A placeholder without an id under the key is still this session's own.
    expect(ids.holdsKey(key)).toBe(true);
    expect(ids.holdsKey(archiveKey('tool-result', 'call_1'))).toBe(false);
  });

  it('the cheap print (ids not seen reused) tells apart results of one size by what they hold', () => {
    const same = (text: string) => originalPrint(result(text), false);
    expect(same('a'.repeat(3000))).toBe(same('a'.repeat(3000)));
    expect(same('a'.repeat(3000))).not.toBe(same('b'.repeat(3000)));
    const image = (source: object) =>
      originalPrint(
        { type: 'tool_result', tool_use_id: 'call_0', content: [{ type: 'image', source }] },
        false,
      );
    // Parts other than text: their JSON, not the `[image]` their text shows.
    expect(image({ type: 'url', url: 'https://example.com/a.png' })).not.toBe(
      image({ type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' }),
    );
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
