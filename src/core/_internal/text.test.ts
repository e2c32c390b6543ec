import { describe, expect, it } from 'vitest';
import { pathTail, shortenLine, shortenMiddle, sliceHead, sliceTail } from './text.js';

describe('shortenMiddle', () => {
  it('keeps a command that fits as written, on one line', () => {
    expect(shortenMiddle('go test ./...\n  -run TestSync', 80)).toBe('go test ./... -run TestSync');
  });

  it('keeps the start and the end of a longer line, so reads of two files differ', () => {
    const command =
      "sed -n '1,220p' $(go env GOMODCACHE)/github.com/go-git/go-git/v5@v5.17.0/plumbing/protocol/packp/uppackreq.go";
    const short = shortenMiddle(command, 81);
    expect(short).toHaveLength(81);
    expect(short.startsWith("sed -n '1,220p' $(go env GOMODCACHE)/github.com/")).toBe(true);
    expect(short.endsWith('/packp/uppackreq.go')).toBe(true);
    expect(shortenMiddle(command.replace('uppackreq.go', 'advrefs.go'), 81)).not.toBe(short);
  });
});

describe('pathTail', () => {
  it('keeps the file name of a long path, within max', () => {
    const path = '/Users/soph/Work/entire/devenv/cli/cmd/entire/cli/strategy/manual_commit_session.go';
    expect(pathTail(path, 40)).toBe('…e/cli/strategy/manual_commit_session.go');
    expect(pathTail('src/a.ts', 40)).toBe('src/a.ts');
    expect(pathTail(path, 1)).toBe('…');
  });
});

describe('cutting text between the halves of a surrogate pair', () => {
  const emoji = '😀'.repeat(10);
  const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

  it('keeps whole characters: a pair is kept whole or left out whole', () => {
    expect(sliceHead(emoji, 3)).toBe('😀');
    expect(sliceHead(emoji, 4)).toBe('😀😀');
    expect(sliceTail(emoji, 17)).toBe('😀');
    expect(sliceTail(emoji, 16)).toBe('😀😀');
    expect(sliceHead('abc', 2)).toBe('ab');
    expect(sliceTail('abc', 2)).toBe('c');
  });

  it('gives no lone surrogate from the shortening helpers, at any length', () => {
    for (const text of [emoji, `a${emoji}`]) {
      for (let max = 1; max < text.length; max++) {
        for (const short of [shortenLine(text, max), shortenMiddle(text, max), pathTail(text, max)])
          expect(short).not.toMatch(lone);
      }
    }
  });
});
