import { describe, expect, it } from 'vitest';
import { searchHits, searchPlaces } from './search-hits.js';

const hits = (result: string) => searchHits(result).map(({ hit, matched }) => [hit, matched]);

describe('searchHits', () => {
  it('takes `path:line:` hits, each file once with its first match', () => {
    expect(hits('src/a.ts-3-context\nsrc/a.ts:4:match\nsrc/a.ts:9:again\nlib/b.py:1:x')).toEqual([
      ['src/a.ts:4', true],
      ['lib/b.py:1', true],
    ]);
  });

  it('takes bare paths (a files-only search)', () => {
    expect(hits('src/a.ts\nlib/b.py\n')).toEqual([
      ['src/a.ts', false],
      ['lib/b.py', false],
    ]);
  });

  it('takes `path:text` matches grep prints without -n, and no count of `grep -c`', () => {
    const result = [
      '<returncode>0</returncode>',
      '<output>',
      'django/db/models/expressions.py:    filterable = True',
      'django/db/models/expressions.py:    filterable = False',
      'django/db/models/query.py:0',
      '</output>',
    ].join('\n');
    expect(hits(result)).toEqual([['django/db/models/expressions.py', true]]);
  });

  it("takes Gemini CLI's `File:` blocks of `L12:` hits", () => {
    const result = [
      'Found 3 matches for pattern "dedupe" in the workspace directory:',
      '---',
      'File: cmd/transcript.go',
      'L11- func CalculateTokenUsage(lines []string) (*Usage, error) {',
      'L12: \treturn dedupe(lines), nil',
      '---',
      'File: cmd/dedupe.go',
      'L8: func dedupe(lines []string) *Usage {',
      '---',
    ].join('\n');
    expect(hits(result)).toEqual([
      ['cmd/transcript.go:12', true],
      ['cmd/dedupe.go:8', true],
    ]);
  });
});

describe('searchPlaces', () => {
  const placedHits = (result: string, searched: string | undefined) =>
    searchPlaces(result, searched).hits.map(({ hit }) => hit);

  it.each([
    [
      'a search of the folder the agent runs in',
      'Found 2 files\ngo.mod\ngo.sum',
      '/repo',
      ['/repo/go.mod', '/repo/go.sum'],
    ],
    [
      "a search of a folder below it (paths from the agent's folder)",
      'cmd/tool/main.go:27:\trootCmd := cli.New()\ncmd/tool/cli/hooks.go:101:\tcmd.Add()',
      '/repo/cmd/tool',
      ['/repo/cmd/tool/main.go:27', '/repo/cmd/tool/cli/hooks.go:101'],
    ],
    ['a search of one file', 'cmd/tool/a.go', '/repo/cmd/tool/a.go', ['/repo/cmd/tool/a.go']],
    ['an absolute hit', '/elsewhere/b.go:3:x', '/repo', ['/elsewhere/b.go:3']],
    ['a relative path searched (nothing to place against)', 'src/a.ts:4:x', 'src', ['src/a.ts:4']],
    ['no path searched', 'src/a.ts:4:x', undefined, ['src/a.ts:4']],
    ['a search of one file whose hit is another', 'lib/b.go:3:x', '/repo/cmd/a.go', ['lib/b.go:3']],
    [
      'a grep of one file, whose matches are quoted import paths',
      '\t"example.com/app/agent"\n\t"example.com/app/checkpoint"',
      '/repo/session/session.go',
      ['/repo/session/session.go'],
    ],
  ])('places the hits of %s against the path searched', (_name, result, searched, expected) => {
    expect(placedHits(result, searched)).toEqual(expected);
  });
});
