import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// The README is the front door: short, in the order a newcomer needs it, and every link in it and
// in the documents it sends the reader to lands on a file (and a heading) that exists.
const root = resolve(import.meta.dirname, '..');
const README_WORD_LIMIT = 2_000; // issue 33: "README under 2,000 words"
const LIBRARY_LINES = 10; // "the library in ten lines"
const PROXY_LINES = 5; // "the proxy and `wrap` in five"

const readme = readFileSync(join(root, 'README.md'), 'utf8');
const documents = [
  'README.md',
  'BENCHMARKS.md',
  'CHANGELOG.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** Words as `wc -w` counts them: code blocks and tables included. */
function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/** The first fenced block under a `## heading`. */
function blockUnder(heading: string): string {
  const start = readme.indexOf(`\n## ${heading}\n`);
  expect(start, `README has a "## ${heading}" section`).toBeGreaterThan(0);
  const match = /```\w*\n([\s\S]*?)```/.exec(readme.slice(start));
  return match![1]!;
}

/** Lines of code in a block: blank lines and whole-line comments do not count. */
function codeLines(block: string): number {
  return block.split('\n').filter((line) => line.trim() !== '' && !/^\s*(\/\/|#)/.test(line)).length;
}

/** GitHub's anchor for each heading of a Markdown text (lower case, punctuation dropped, `-` for spaces). */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  const withoutCode = text.replace(/```[\s\S]*?```/g, '');
  for (const [, title] of withoutCode.matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = title!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    found.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return found;
}

/** Every relative link target `[text](target)` outside code blocks, with its line. */
function links(text: string): { target: string; line: number }[] {
  const found: { target: string; line: number }[] = [];
  const withoutCode = text.replace(/```[\s\S]*?```/g, (block) => block.replace(/[^\n]/g, ' '));
  for (const match of withoutCode.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = match[1]!;
    if (/^[a-z]+:/i.test(target)) continue;
    found.push({ target, line: withoutCode.slice(0, match.index).split('\n').length });
  }
  return found;
}

describe('README: the front door', () => {
  it(`is under ${README_WORD_LIMIT} words`, () => {
    expect(wordCount(readme)).toBeLessThan(README_WORD_LIMIT);
  });

  it('reads in the order a newcomer needs it', () => {
    const sections = [...readme.matchAll(/^## (.+)$/gm)].map((match) => match[1]);
    expect(sections.slice(0, 5)).toEqual([
      'Set up and test',
      'See it work, offline',
      'The library in ten lines',
      'The proxy and `wrap` in five lines',
      'Read on',
    ]);
  });

  it('shows the library in ten lines and the proxy and wrap in five', () => {
    expect(codeLines(blockUnder('The library in ten lines'))).toBeLessThanOrEqual(LIBRARY_LINES);
    const proxy = blockUnder('The proxy and `wrap` in five lines');
    expect(codeLines(proxy)).toBeLessThanOrEqual(PROXY_LINES);
    expect(proxy).toContain('agent-compact wrap');
    expect(proxy).toContain('agent-compact proxy');
  });

  it('links every document in docs/', () => {
    const linked = new Set(links(readme).map((link) => link.target.split('#')[0]));
    const missing = documents.filter((document) => document !== 'README.md' && !linked.has(document));
    expect(missing).toEqual([]);
  });
});

describe('links between the documents', () => {
  it.each(documents)('every relative link in %s lands on a file and heading that exist', (document) => {
    const text = readFileSync(join(root, document), 'utf8');
    const broken = links(text).filter(({ target }) => {
      const [path, anchor] = target.split('#');
      const file = path ? resolve(root, dirname(document), path) : join(root, document);
      if (!existsSync(file)) return true;
      if (!anchor || !file.endsWith('.md')) return false;
      return !anchors(readFileSync(file, 'utf8')).has(anchor);
    });
    expect(broken.map(({ target, line }) => `${document}:${line} → ${target}`)).toEqual([]);
  });
});
