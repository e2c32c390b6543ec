/** The proxy's `--json-log FILE`: one JSON line per request, appended; a failed write never stops the proxy. */
import { createWriteStream, openSync } from 'node:fs';
import { resolve } from 'node:path';
import { CliError, type CliIO } from '../cli-io.js';

/** An open request log. */
export interface JsonLog {
  write(record: unknown): void;
  close(): Promise<void>;
}

/**
 * Opens FILE for appending now, so a path that cannot be written is a one-line error at start; a
 * write that fails later (a full disk) is said once on stderr and the proxy goes on without the log.
 */
export function openJsonLog(file: string, io: CliIO): JsonLog {
  const path = resolve(io.cwd, file);
  let fd: number;
  try {
    fd = openSync(path, 'a');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new CliError(`--json-log: cannot open ${file} for appending (${reason})`, 2);
  }
  const stream = createWriteStream(path, { fd });
  let failed = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (failed) return;
    failed = true;
    io.stderr(
      `agent-compact: --json-log ${file}: ${error.code ?? error.message}; requests are no longer logged\n`,
    );
  });
  return {
    write(record) {
      if (!failed) stream.write(`${JSON.stringify(record)}\n`);
    },
    close: () =>
      new Promise<void>((done) => {
        if (failed || stream.destroyed) return done();
        stream.end(() => done());
      }),
  };
}
