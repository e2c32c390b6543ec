import { describe, expect, it } from 'vitest';
import { KnownNames } from './known-names.js';
import type { WorkingSetFile, WorkingSetState } from './working-set-state.js';

const definition = (name: string) => ({
  name,
  kind: 'function',
  signature: `function ${name}()`,
  line: 1,
  endLine: 2,
});
const file = (path: string, defined: string[], names: string[] = []): WorkingSetFile => ({
  path,
  edited: false,
  turn: 1,
  definitions: defined.map(definition),
  edits: [],
  names,
});

/** Every name the state's sources hold, counted from scratch. */
function allNames(state: WorkingSetState): Set<string> {
  const names = new Set<string>();
  for (const each of state.files) {
    for (const defined of each.definitions) names.add(defined.name);
    for (const name of each.names ?? []) names.add(name);
  }
  for (const search of state.searches)
    for (const [name] of search.pattern.matchAll(/[A-Za-z_$][\w$]{2,}/g)) names.add(name);
  return names;
}

function expectSame(known: KnownNames, state: WorkingSetState, gone: string[]): void {
  const names = allNames(state);
  expect(known.size).toBe(names.size);
  for (const name of names) expect(known.has(name)).toBe(true);
  for (const name of gone) expect(known.has(name), name).toBe(names.has(name));
}

describe('KnownNames', () => {
  it('follows replaced outlines, dropped files and searches, and drops the uses of names gone', () => {
    const state: WorkingSetState = {
      files: [file('a.ts', ['alpha', 'shared'], ['useThing']), file('b.ts', ['beta', 'shared'])],
      searches: [{ pattern: 'findMe|other_name', turn: 1, hits: [], total: 0 }],
      uses: { alpha: 2, shared: 1, stale_name: 4 },
    };
    const known = new KnownNames(state);
    expectSame(known, state, []);
    // A state restored with a use of a name no source holds loses it.
    expect(state.uses).toEqual({ alpha: 2, shared: 1 });

    state.files[0]!.definitions = [definition('gamma')];
    state.files[0]!.names = ['useThing', 'newCall'];
    known.sync();
    expectSame(known, state, ['alpha', 'shared']);
    // `shared` is still defined by b.ts; `alpha` went with a.ts's old outline.
    expect(state.uses).toEqual({ shared: 1 });

    state.uses.beta = 3;
    state.uses.findMe = 1;
    state.files.splice(1, 1);
    state.searches = [{ pattern: 'gamma', turn: 2, hits: [], total: 0 }];
    known.sync();
    expectSame(known, state, ['beta', 'shared', 'findMe', 'other_name']);
    expect(state.uses).toEqual({});
  });

  it('matches a count from scratch over a long run of random changes', () => {
    const state: WorkingSetState = { files: [], searches: [], uses: {} };
    const known = new KnownNames(state);
    const pool = Array.from({ length: 30 }, (_, index) => `name_${index}`);
    let seed = 7;
    const random = (below: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % below;
    };
    const some = () => Array.from({ length: random(5) }, () => pool[random(pool.length)]!);
    for (let step = 0; step < 500; step++) {
      const before = [...allNames(state)];
      const choice = random(4);
      if (choice === 0) state.files.push(file(`f${step}.ts`, some(), some()));
      else if (choice === 1 && state.files.length > 0) state.files.splice(random(state.files.length), 1);
      else if (choice === 2 && state.files.length > 0)
        state.files[random(state.files.length)]!.definitions = some().map(definition);
      else
        state.searches = [
          ...state.searches.slice(-3),
          { pattern: some().join('|'), turn: step, hits: [], total: 0 },
        ];
      for (const name of some()) if (known.has(name)) state.uses[name] = (state.uses[name] ?? 0) + 1;
      known.sync();
      expectSame(known, state, before);
      for (const name of Object.keys(state.uses)) expect(known.has(name)).toBe(true);
    }
  });
});
