import { describe, expect, it } from 'vitest';
import { recordingIO } from './cli-io.test-utils.js';
import { createProgress, PROGRESS_DELAY_MS, progressText } from './progress.js';

/** A clock the test moves by hand. */
function manualClock(start = 1_000_000) {
  let time = start;
  return {
    now: () => time,
    advance: (milliseconds: number) => {
      time += milliseconds;
    },
  };
}

describe('createProgress', () => {
  it('shows nothing for work that ends within the delay', () => {
    const clock = manualClock();
    const { output, io } = recordingIO('/');
    const progress = createProgress(io, { label: 'compact', total: 100, unit: 'bytes', now: clock.now });
    clock.advance(PROGRESS_DELAY_MS - 1);
    progress.update(50);
    progress.update(100);
    progress.note('compacting 3 messages');
    progress.end();
    expect(output.stderr).toBe('');
  });

  it('prints plain lines off a terminal, the end once', () => {
    const clock = manualClock();
    const { output, io } = recordingIO('/');
    const progress = createProgress(io, {
      label: 'compact',
      total: 200_000_000,
      unit: 'bytes',
      now: clock.now,
    });
    clock.advance(PROGRESS_DELAY_MS);
    progress.update(50_000_000);
    progress.update(60_000_000); // throttled: too soon after the last line
    progress.update(200_000_000);
    progress.update(200_000_000);
    progress.note('compacting 3 messages');
    progress.end();
    expect(output.stderr.split('\n')).toEqual([
      'compact: 50 of 200 MB (25%), about 6 s left',
      'compact: 200 of 200 MB (100%)',
      'compact: compacting 3 messages',
      '',
    ]);
  });

  it('redraws one bar on a terminal and ends its line', () => {
    const clock = manualClock();
    const { output, io } = recordingIO('/', {}, { isTTY: true });
    const progress = createProgress(io, { label: 'simulate', total: 4, unit: 'files', now: clock.now });
    clock.advance(PROGRESS_DELAY_MS);
    progress.update(1, 'a.jsonl');
    clock.advance(PROGRESS_DELAY_MS);
    progress.update(4, 'd.jsonl');
    progress.end();
    expect(output.stderr).toBe(
      '\r[######..................] 1/4 files (25%), about 6 s left: a.jsonl\u001b[K' +
        '\r[########################] 4/4 files (100%): d.jsonl\u001b[K\n',
    );
  });
});

describe('progressText', () => {
  it.each([
    [0, 10, 'files', 5_000, '0/10 files (0%)'],
    [5, 10, 'files', 60_000, '5/10 files (50%), about 60 s left'],
    [1, 10, 'files', 60_000, '1/10 files (10%), about 9 min left'],
    [1, 100, 'files', 3_600_000, '1/100 files (1%), about 99 h left'],
    [2_500_000, 10_000_000, 'bytes', 1_000, '2.5 of 10 MB (25%), about 3 s left'],
  ] as const)('%d of %d %s after %d ms: %s', (done, total, unit, elapsed, expected) => {
    expect(progressText(done, total, unit, elapsed)).toBe(expected);
  });
});
