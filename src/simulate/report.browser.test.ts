import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBrowser, required, skipWithout } from '../testing/browsers.test-utils.js';
import { strategyNames } from './replay-strategies.js';
import { renderTestReport } from './report.test-utils.js';

const run = promisify(execFile);

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
    await writeFile(page, (await renderTestReport()).html);
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
