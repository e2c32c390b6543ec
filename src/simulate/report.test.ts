import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '../core/conversation/types.js';
import { createExtractiveSummaryModel } from '../core/summary/extractive-summary.js';
import { findBrowser, required, skipWithout } from '../testing/browsers.test-utils.js';
import { createTiktokenCounter } from '../tokenizer/index.js';
import { strategyNames } from './replay-strategies.js';
import { renderReport } from './report.js';
import { type SimulationResult, simulate } from './simulate.js';

const run = promisify(execFile);

function transcript(turns: number): { system: string; messages: Message[] } {
  const messages: Message[] = [{ role: 'user', content: 'Find why <checkout> fails & fix it.' }];
  for (let index = 0; index < turns; index++) {
    messages.push(
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: `t${index}`, name: 'read_file', input: { path: `src/module_${index}.py` } },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: `t${index}`,
            content: `def f_${index}():\n    return ${index}\n`.repeat(120),
          },
        ],
      },
    );
  }
  messages.push({ role: 'assistant', content: 'Fixed.' });
  return { system: 'You are a coding agent.', messages };
}

let result: SimulationResult;
let html: string;

beforeAll(async () => {
  result = await simulate(
    [{ file: 'runs/<odd> & "name".jsonl', format: 'anthropic', transcript: transcript(40) }],
    {
      summarizer: createExtractiveSummaryModel(),
      counter: createTiktokenCounter(),
      mid: 8000,
      hard: 16000,
    },
  );
  html = renderReport(result, { subtitle: 'test report' });
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

const chromium = await findBrowser('chromium');
const skipRender = skipWithout('chromium', chromium, 'report render test');

describe.skipIf(skipRender)('the report in headless Chromium', () => {
  let directory: string;
  let page: string;
  const flags = (profile: string) => [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    `--user-data-dir=${profile}`,
    '--window-size=1280,900',
  ];

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'report-render-'));
    page = join(directory, 'report.html');
    await writeFile(page, html);
  });

  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('parses to a DOM with the chart and the table', async () => {
    const { stdout } = await run(
      required('chromium', chromium),
      [...flags(join(directory, 'dom')), '--dump-dom', pathToFileURL(page).href],
      {
        timeout: 60_000,
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    expect(stdout).toMatch(/<svg[^>]*class="chart"/);
    expect(stdout.match(/<polyline/g)).toHaveLength(strategyNames.length);
    expect(stdout).toMatch(/<table class="summary">/);
    expect(stdout).toContain('agent-compact');
  });

  it('renders a screenshot', async () => {
    const screenshot = join(directory, 'report.png');
    await run(
      required('chromium', chromium),
      [...flags(join(directory, 'shot')), `--screenshot=${screenshot}`, pathToFileURL(page).href],
      {
        timeout: 60_000,
      },
    );
    const png = await readFile(screenshot);
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    // A blank page compresses to a few kilobytes; text, tables and lines make it far larger.
    expect(png.length).toBeGreaterThan(20_000);
  });
});
