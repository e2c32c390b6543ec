import { describe, expect, it } from 'vitest';
import { CompactError } from '../model/errors.js';
import { createMemorySessionStateStore } from './memory-session-state-store.js';
import { COMPACTOR_STATE_SCHEMA, type CompactorState } from './session-state-store.js';

const state: CompactorState = {
  schema: COMPACTOR_STATE_SCHEMA,
  ids: { next: 3, keys: { 'tool-result:toolu_1': 'r1' } },
  counter: { overallRatio: 1, weightedSamples: 0, weights: 0, reports: 0 },
  breaker: { hardOnLastCall: false },
};

describe('createMemorySessionStateStore', () => {
  it('versions every save and returns a copy of what was saved', async () => {
    const store = createMemorySessionStateStore();
    expect(await store.load('s')).toBeUndefined();
    expect(await store.save('s', state, { expectedVersion: 0 })).toEqual({ version: 1 });
    expect(await store.save('s', { ...state, ids: { next: 4, keys: {} } }, { expectedVersion: 1 })).toEqual({
      version: 2,
    });
    const loaded = await store.load('s');
    expect(loaded).toEqual({ version: 2, state: { ...state, ids: { next: 4, keys: {} } } });
    loaded!.state.ids.next = 99;
    expect((await store.load('s'))!.state.ids.next).toBe(4);
  });

  it('rejects a save whose expected version moved with STATE_CONFLICT', async () => {
    const store = createMemorySessionStateStore();
    await store.save('s', state, { expectedVersion: 0 });
    const error = await store.save('s', state, { expectedVersion: 0 }).catch((caught: unknown) => caught);
    expect(CompactError.isInstance(error) && error.code).toBe('STATE_CONFLICT');
    // Sessions are independent.
    await expect(store.save('other', state, { expectedVersion: 0 })).resolves.toEqual({ version: 1 });
  });
});
