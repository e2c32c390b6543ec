/**
 * Progress on stderr for long CLI work: a bar redrawn in place on a terminal, a plain line now and
 * then otherwise (a log keeps every line). Nothing is shown for work that ends within
 * {@link PROGRESS_DELAY_MS}, so quick runs print exactly what they printed before.
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { CliIO } from './cli-io.js';

/** Work shorter than this shows no progress: a couple of seconds, past which a user wonders. */
export const PROGRESS_DELAY_MS = 2000;
/** Plain lines (no terminal) come at most this often, so a log is not flooded. */
const PLAIN_LINE_INTERVAL_MS = 5000;
/** A terminal bar is redrawn at most this often. */
const BAR_REDRAW_INTERVAL_MS = 100;
const BAR_WIDTH = 24;

/** How a progress display reads the clock; tests pass their own. */
export type Clock = () => number;

/** One task's progress: `update` as work is done, `end` once (it closes a drawn bar's line). */
export interface Progress {
  /** `done` of `total` units are finished; `detail` (a file name) is shown after the figure. */
  update(done: number, detail?: string): void;
  /** The work is over: a drawn bar gets its newline. */
  end(): void;
  /** One plain line about the next step (`compacting 13,938 messages`), once progress is showing. */
  note(text: string): void;
}

/** Options of {@link createProgress}. */
export interface ProgressOptions {
  /** The command's name, in front of every plain line: `compact`. */
  label: string;
  /** How many units the whole task is. */
  total: number;
  /** How a count of units is shown: bytes as MB, files as `3/12`. */
  unit: 'bytes' | 'files';
  /** Where the time comes from. @default Date.now */
  now?: Clock;
}

/**
 * A progress display on `io.stderr`. It stays silent for the first {@link PROGRESS_DELAY_MS};
 * after that each update (throttled) shows the share done and an estimate of the time left.
 *
 * @example
 * const progress = createProgress(io, { label: 'compact', total: size, unit: 'bytes' });
 * progress.update(bytesRead);
 * progress.end();
 */
export function createProgress(
  io: Pick<CliIO, 'stderr' | 'isTTY'>,
  { label, total, unit, now = Date.now }: ProgressOptions,
): Progress {
  const started = now();
  let lastShown = Number.NEGATIVE_INFINITY;
  let drawn = false;
  let finished = false;
  return {
    update(done, detail) {
      const time = now();
      if (finished || time - started < PROGRESS_DELAY_MS) return;
      // The end is shown once, whenever it comes; other updates are throttled.
      finished = done >= total;
      if (!finished && time - lastShown < (io.isTTY ? BAR_REDRAW_INTERVAL_MS : PLAIN_LINE_INTERVAL_MS))
        return;
      lastShown = time;
      const text = progressText(done, total, unit, time - started, detail);
      if (io.isTTY) {
        io.stderr(`\r${bar(done, total)} ${text}\u001b[K`);
        drawn = true;
      } else {
        io.stderr(`${label}: ${text}\n`);
      }
    },
    end() {
      if (drawn) io.stderr('\n');
      drawn = false;
    },
    note(text) {
      if (now() - started < PROGRESS_DELAY_MS) return;
      this.end();
      io.stderr(`${label}: ${text}\n`);
    },
  };
}

/** A byte progress over reading FILE (its size from the file system; 0 when it cannot be read). */
export async function fileProgress(io: CliIO, label: string, file: string): Promise<Progress> {
  const size = (await stat(resolve(io.cwd, file)).catch(() => undefined))?.size ?? 0;
  return createProgress(io, { label, total: size, unit: 'bytes', ...(io.now ? { now: io.now } : {}) });
}

/** `40 of 200 MB (20%), about 12 s left`, or `3/12 files (25%), about 1 min left: name`. */
export function progressText(
  done: number,
  total: number,
  unit: ProgressOptions['unit'],
  elapsedMs: number,
  detail?: string,
): string {
  const share = total > 0 ? Math.min(1, done / total) : 1;
  const figure = unit === 'bytes' ? `${megabytes(done)} of ${megabytes(total)} MB` : `${done}/${total} files`;
  const left = share > 0 && share < 1 ? `, about ${timeLeft((elapsedMs / share) * (1 - share))} left` : '';
  return `${figure} (${Math.floor(share * 100)}%)${left}${detail ? `: ${detail}` : ''}`;
}

function bar(done: number, total: number): string {
  const filled = total > 0 ? Math.min(BAR_WIDTH, Math.round((done / total) * BAR_WIDTH)) : BAR_WIDTH;
  return `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}]`;
}

function megabytes(bytes: number): string {
  return (bytes / 1_000_000).toFixed(bytes < 10_000_000 ? 1 : 0);
}

/** A rough duration: `8 s`, `3 min`, `2 h`. */
export function timeLeft(milliseconds: number): string {
  const seconds = Math.ceil(milliseconds / 1000);
  if (seconds < 120) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  return minutes < 120 ? `${minutes} min` : `${Math.round(minutes / 60)} h`;
}
