import { beforeAll, describe, expect, it } from 'vitest';
import { strategyNames } from './replay-strategies.js';
import { renderTestReport } from './report.test-utils.js';
import type { SimulationResult } from './simulate.js';

// The render in headless Chromium is in report.browser.test.ts (`npm run test:browsers`).
let result: SimulationResult;
let html: string;

beforeAll(async () => {
  ({ result, html } = await renderTestReport());
});

describe('renderReport', () => {
  it('is one self-contained document: inline style and SVG, no script, no external URL', () => {
    expect(html).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(html).toContain('<style>');
    expect(html).not.toContain('<script');
    expect(html).not.toMatch(/(?:src|href)\s*=/);
    expect(html).not.toMatch(/url\(/);
  });

  it('draws a line per strategy, one colour each with a legend, the thresholds and a marker per compaction', () => {
    const colours = new Set<string>();
    for (const name of strategyNames) {
      const line = new RegExp(`data-strategy="${name}"[^>]*stroke="(#[0-9a-f]{6})"`).exec(html);
      expect(line, name).not.toBeNull();
      colours.add(line![1]!);
      expect(html).toContain(`<span class="swatch" style="background:${line![1]}"></span>${name}</span>`);
    }
    expect(colours.size).toBe(strategyNames.length);
    expect(html).toContain('mid 8k');
    expect(html).toContain('hard 16k');
    const compactions = strategyNames.reduce((sum, name) => {
      const { micro, mid, hard } = result.total[name]!.compactions;
      return sum + micro + mid + hard;
    }, 0);
    expect(compactions).toBeGreaterThan(0);
    expect(html.match(/class="marker /g)).toHaveLength(compactions);
  });

  it('escapes file names', () => {
    expect(html).toContain('runs/&lt;odd&gt; &amp; &quot;name&quot;.jsonl');
    expect(html).not.toContain('<odd>');
  });
});
