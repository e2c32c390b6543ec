import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIO } from '../../cli/cli-io.js';
import type { Message } from '../../core/model/messages.js';
import { codexRolloutLines, compactedClaudeCodeSession } from '../../importers/agent-sessions.test-utils.js';
import { strategyNames } from '../../simulate/replay-strategies.js';
import { main } from '../main.js';

interface FakeIO extends CliIO {
  out: string;
  err: string;
}

function fakeIO(cwd: string, isTTY = false): FakeIO {
  const io: FakeIO = {
    out: '',
    err: '',
    stdout: (text) => {
      io.out += text;
    },
    stderr: (text) => {
      io.err += text;
    },
    env: {},
    cwd,
    isTTY,
  };
  return io;
}

/** A small Anthropic JSONL session: a task, `turns` bash calls with long outputs, a final answer. */
function sessionJsonl(turns: number): string {
  const lines: unknown[] = [{ system: 'You are a coding agent.' }];
  const messages: Message[] = [{ role: 'user', content: 'Make the tests pass.' }];
  for (let index = 0; index < turns; index++) {
    messages.push(
      {
        role: 'assistant',
        content: [
          { type: 'text', text: `Step ${index}.` },
          {
            type: 'tool_use',
            id: `toolu_${index}`,
            name: 'bash',
            input: { command: `pytest tests/test_${index}.py` },
          },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: `toolu_${index}`,
            content: `${'collected 12 items\n'.repeat(150)}FAILED tests/test_${index}.py::test_x - KeyError: 'k${index}'\nExit code: 1`,
            is_error: true,
          },
        ],
      },
    );
  }
  messages.push({ role: 'assistant', content: 'All done.' });
  lines.push(...messages);
  return `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
}

const contractFields = [
  'turns',
  'peakTokens',
  'billedInputTokens',
  'cost',
  'prefixRewrites',
  'compactions',
  'retention',
  'retentionOfCompacted',
  'summaryCalls',
  'summaryInputTokens',
  'summaryOutputTokens',
  'summaryCost',
  'blockedSeconds',
  'longestWaitSeconds',
];

let directory: string;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'simulate-cli-'));
  await writeFile(join(directory, 'a.jsonl'), sessionJsonl(24));
  await writeFile(join(directory, 'b.jsonl'), sessionJsonl(8));
  await writeFile(join(directory, 'notes.json'), '{"not": "a transcript"}');
  await writeFile(join(directory, 'README.md'), '# not read');
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('agent-compact simulate', () => {
  it('--json prints one object with the contract fields per file and in total, nothing else on stdout', async () => {
    const io = fakeIO(directory);
    const code = await main(['simulate', '.', '--json', '--mid', '3000', '--hard', '6000'], io);
    expect(code).toBe(0);
    const output = JSON.parse(io.out) as {
      files: Array<Record<string, unknown>>;
      total: Record<string, Record<string, unknown>>;
      skipped: Array<{ file: string }>;
    };
    expect(output.files.map((file) => file.file)).toEqual(['a.jsonl', 'b.jsonl']);
    expect(output.skipped.map((file) => file.file)).toEqual(['notes.json']);
    // No transcript here records an agent's own compaction, so `actual` is left out by default.
    const replayed = strategyNames.filter((name) => name !== 'actual');
    expect(Object.keys(output.total)).toEqual(replayed);
    for (const strategies of [output.total, ...output.files]) {
      for (const name of replayed) {
        const strategy = strategies[name] as Record<string, unknown>;
        for (const field of contractFields) expect(strategy, `${name}.${field}`).toHaveProperty(field);
        expect(strategy.compactions).toEqual({
          micro: expect.any(Number),
          mid: expect.any(Number),
          hard: expect.any(Number),
        });
        expect(strategy.retention).toBeGreaterThanOrEqual(0);
        expect(strategy.retention).toBeLessThanOrEqual(1);
      }
    }
    const total = output.total as Record<
      string,
      { turns: number; billedInputTokens: number; prefixRewrites: number }
    >;
    expect(total.none!.turns).toBe(25 + 9);
    expect(total.none!.prefixRewrites).toBe(0);
    expect(total.seed!.prefixRewrites).toBeGreaterThan(0);
    // Progress goes to stderr as plain lines when stderr is not a terminal.
    expect(io.err).toContain('simulate: 2/2 b.jsonl');
    expect(io.err).toContain('simulate: skipped notes.json');
  });

  it('prints each file with an estimate of the time left', async () => {
    const io = fakeIO(directory);
    // Every reading of the clock is 10 s after the last: the first file takes 10 s.
    let time = 0;
    io.now = () => {
      time += 10_000;
      return time;
    };
    expect(await main(['simulate', 'a.jsonl', 'b.jsonl', '--strategies', 'none'], io)).toBe(0);
    expect(io.err).toContain('simulate: 1/2 a.jsonl, about 10 s left\n');
    expect(io.err).toMatch(/simulate: 2\/2 b\.jsonl\n/);
  });

  it('a folder with no transcripts is bad input: exit 2', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'simulate-empty-'));
    await writeFile(join(empty, 'README.md'), '# not a transcript');
    const io = fakeIO(empty);
    expect(await main(['simulate', '.'], io)).toBe(2);
    expect(io.err).toBe('agent-compact simulate: no transcripts found to replay\n');
    await rm(empty, { recursive: true, force: true });
  });

  it('prints a table per file and a progress bar on a terminal', async () => {
    const io = fakeIO(directory, true);
    expect(await main(['simulate', 'a.jsonl', '--strategies', 'none,seed'], io)).toBe(0);
    expect(io.out).toMatch(/^a\.jsonl \(anthropic\)/);
    expect(io.out).toMatch(
      /strategy +turns +peak tokens +billed input +vs none +cost +prefix rewrites +mid rewrites \/ 100 turns +micro +mid +hard +retention/,
    );
    expect(io.out).toMatch(/\nnone +25 /);
    expect(io.out).toMatch(/\nseed +25 /);
    expect(io.out).not.toContain('agent-compact ');
    expect(io.err).toContain('\r[########################] 1/1 a.jsonl');
  });

  it('--report writes one self-contained HTML file', async () => {
    const io = fakeIO(directory);
    expect(
      await main(['simulate', 'a.jsonl', '--report', 'out.html', '--mid', '3000', '--hard', '6000'], io),
    ).toBe(0);
    const html = await readFile(join(directory, 'out.html'), 'utf8');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<svg');
    expect(html).toContain('<table');
    expect(html).not.toMatch(/(src|href)="https?:/);
    expect(io.err).toContain('simulate: wrote out.html');
  });

  it('applies --price-input and --price-output', async () => {
    const run = async (args: string[]) => {
      const io = fakeIO(directory);
      await main(['simulate', 'b.jsonl', '--json', '--strategies', 'none', ...args], io);
      return (JSON.parse(io.out) as { total: { none: { cost: number; billedInputTokens: number } } }).total
        .none;
    };
    const base = await run([]);
    const doubled = await run(['--price-input', '6', '--price-output', '30']);
    expect(doubled.cost).toBeCloseTo(base.cost * 2, 5);
    expect(doubled.billedInputTokens).toBe(base.billedInputTokens);
  });

  it('--window sets every strategy at the thresholds agent-compact derives from it; --mid and --hard set both', async () => {
    const thresholdsOf = async (args: string[]) => {
      const io = fakeIO(directory);
      await main(['simulate', 'b.jsonl', '--json', '--strategies', 'seed,agent-compact', ...args], io);
      const [file] = (JSON.parse(io.out) as { files: Array<Record<string, { thresholds?: unknown }>> }).files;
      return { seed: file!.seed!.thresholds, agent: file!['agent-compact']!.thresholds };
    };
    // The peers' triggers are the window's too (Claude Code compacts near the window's end).
    const windowed = await thresholdsOf(['--window', '40000']);
    expect(windowed.agent).not.toEqual({ mid: 50_000, hard: 80_000 });
    expect(windowed.seed).toEqual(windowed.agent);
    expect(await thresholdsOf(['--mid', '1000', '--hard', '2000'])).toEqual({
      seed: { mid: 1000, hard: 2000 },
      agent: { mid: 1000, hard: 2000 },
    });
  });

  /** `simulate a.jsonl --json` of agent-compact alone at mid 3,000 / hard 6,000, with `args`. */
  async function simulateAgentCompact(args: string[]) {
    const io = fakeIO(directory);
    const code = await main(
      [
        'simulate',
        'a.jsonl',
        '--json',
        '--strategies',
        'agent-compact',
        '--mid',
        '3000',
        '--hard',
        '6000',
        ...args,
      ],
      io,
    );
    return { code, io };
  }

  it('--background runs agent-compact hard summaries in the background: billed the same, waited for less', async () => {
    const run = async (args: string[]) => {
      const { code, io } = await simulateAgentCompact(args);
      expect(io.err).not.toMatch(/Unknown option/);
      expect(code).toBe(0);
      return (
        JSON.parse(io.out) as { total: Record<string, { summaryCalls: number; blockedSeconds: number }> }
      ).total['agent-compact']!;
    };
    const foreground = await run([]);
    const background = await run(['--background']);
    expect(foreground.summaryCalls).toBeGreaterThan(0);
    expect(background.summaryCalls).toBeGreaterThan(0);
    expect(background.blockedSeconds).toBeLessThan(foreground.blockedSeconds);
  });

  it('--compactor passes agent-compact its options; a value that is not a JSON object is a usage error', async () => {
    const run = simulateAgentCompact;
    const layersOf = (out: string) =>
      (JSON.parse(out) as { total: Record<string, { compactions: Record<string, number> }> }).total[
        'agent-compact'
      ]!.compactions;
    const defaults = await run([]);
    const seedMicro = await run(['--compactor', '{"micro":{"cacheAware":false}}']);
    expect([defaults.code, seedMicro.code]).toEqual([0, 0]);
    expect(layersOf(seedMicro.io.out).micro).toBeGreaterThan(layersOf(defaults.io.out).micro!);
    for (const bad of ['{micro', '[1]', '7']) {
      const refused = await run(['--compactor', bad]);
      expect(refused.code).toBe(2);
      expect(refused.io.err).toMatch(/--compactor expects a JSON object/);
    }
  });

  it('detects a Codex rollout, warns about a two-object line, and reports actual with survival', async () => {
    await writeFile(
      join(directory, 'rollout.jsonl'),
      `${codexRolloutLines({ joinLine: true }).join('\n')}\n`,
    );
    const io = fakeIO(directory);
    const code = await main(
      ['simulate', 'rollout.jsonl', '--json', '--strategies', 'agent-compact,actual'],
      io,
    );
    expect(code).toBe(0);
    expect(io.err).toMatch(/simulate: warning: .*rollout\.jsonl:8: 2 JSON objects on one line/);
    const output = JSON.parse(io.out) as {
      files: Array<{
        format: string;
        actual: { compactions: { hard: number }; survivalAtCompactions?: unknown };
      }>;
      total: Record<string, { survival: Record<string, { visible: number; total: number }> }>;
    };
    expect(output.files[0]!.format).toBe('codex');
    expect(output.files[0]!.actual.compactions.hard).toBe(1);
    expect(output.files[0]!.actual.survivalAtCompactions).toBeDefined();
    expect(output.total['agent-compact']!.survival.commands).toEqual({ visible: 1, total: 1 });
    const text = fakeIO(directory);
    await main(['simulate', 'rollout.jsonl', '--strategies', 'agent-compact,actual'], text);
    expect(text.out).toContain("Survival at the agents' own compaction points");
    await rm(join(directory, 'rollout.jsonl'));
  });

  it('--next-calls sets how many calls the next-need probe looks at; 0 is a usage error', async () => {
    await writeFile(join(directory, 'rollout.jsonl'), `${codexRolloutLines().join('\n')}\n`);
    const io = fakeIO(directory);
    expect(
      await main(['simulate', 'rollout.jsonl', '--json', '--strategies', 'actual', '--next-calls', '5'], io),
    ).toBe(0);
    const output = JSON.parse(io.out) as {
      settings: { nextCalls: number };
      total: { actual: { nextNeedPoints: number; nextNeed: Record<string, unknown> } };
    };
    expect(output.settings.nextCalls).toBe(5);
    expect(output.total.actual.nextNeedPoints).toBe(1);
    expect(Object.keys(output.total.actual.nextNeed)).toEqual([
      'files',
      'identifiers',
      'edit-texts',
      'commands',
    ]);
    const bad = fakeIO(directory);
    expect(await main(['simulate', 'rollout.jsonl', '--next-calls', '0'], bad)).toBe(2);
    expect(bad.err).toMatch(/--next-calls expects a whole number > 0/);
    await rm(join(directory, 'rollout.jsonl'));
  });

  it('bad sessions: a boundary with no summary is a warning, a truncated session one error line', async () => {
    await writeFile(join(directory, 'nosummary.jsonl'), compactedClaudeCodeSession({ withSummary: false }));
    const warned = fakeIO(directory);
    expect(await main(['simulate', 'nosummary.jsonl', '--json', '--strategies', 'actual'], warned)).toBe(0);
    expect(warned.err).toMatch(
      /simulate: warning: .*nosummary\.jsonl:10: compact_boundary has no isCompactSummary line/,
    );
    const text = compactedClaudeCodeSession().trimEnd();
    await writeFile(join(directory, 'truncated.jsonl'), text.slice(0, text.length - 30));
    const failed = fakeIO(directory);
    expect(await main(['simulate', 'truncated.jsonl', '--strategies', 'actual'], failed)).not.toBe(0);
    const lines = failed.err.split('\n').filter((line) => line !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/truncated\.jsonl:15:\d+: broken JSON/);
    expect(failed.err).not.toMatch(/\n\s+at /);
    await rm(join(directory, 'nosummary.jsonl'));
    await rm(join(directory, 'truncated.jsonl'));
  });

  it.each([
    [['simulate'], /name a transcript file or directory/],
    [['simulate', 'a.jsonl', '--strategies', 'none,magic'], /unknown strategy "magic"/],
    [['simulate', 'a.jsonl', '--mid', 'lots'], /--mid expects a whole number/],
    [
      ['simulate', 'a.jsonl', '--mid', '9000', '--hard', '5000'],
      /--mid \(9000\) must be below --hard \(5000\)/,
    ],
    [['simulate', 'a.jsonl', '--format', 'word'], /--format: unknown format "word"/],
    [['simulate', 'missing.jsonl'], /missing\.jsonl: no such file or directory/],
    [['simulate', 'a.jsonl', '--summarizer', 'magic:x'], /--summarizer "magic:x"/],
  ])('%j fails with exit code 2 and one clear line', async (args, message) => {
    const io = fakeIO(directory);
    expect(await main(args, io)).toBe(2);
    expect(io.err).toMatch(message);
    expect(io.out).toBe('');
  });

  it('a file named alone that is not a transcript fails', async () => {
    const io = fakeIO(directory);
    expect(await main(['simulate', 'notes.json'], io)).not.toBe(0);
    expect(io.err.split('\n').filter((line) => line !== '')).toHaveLength(1);
  });
});
