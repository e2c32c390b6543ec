/**
 * The client's request body under the `--max-body` cap: a declared length past it is refused before
 * a byte is read, and a streamed body is counted as it passes, so a body past the cap is answered
 * 413 without ever being held whole. What the client still sends after the 413 is discarded as it
 * arrives (Node's server does that for a body nobody read), never kept.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Transform } from 'node:stream';
import { CompactError } from 'agent-compact';
import { writeProviderError } from '../provider-errors.js';
import type { providerOf } from '../routes.js';

/** The default cap: Anthropic's Messages API refuses requests over 32 MB itself. */
export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

/** Multipliers of the suffixes `--max-body` takes. */
const sizeUnits: Record<string, number> = {
  '': 1,
  b: 1,
  kb: 1000,
  mb: 1000 ** 2,
  gb: 1000 ** 3,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
};

/** Bytes from `33554432`, `32MiB`, `500kb`, `1GB` (KB/MB/GB decimal, KiB/MiB/GiB binary). */
export function parseByteSize(text: string, path: string): number {
  const match = /^\s*(\d+)\s*([a-z]*)\s*$/i.exec(text);
  const unit = sizeUnits[match?.[2]?.toLowerCase() ?? 'x'];
  const bytes = match && unit !== undefined ? Number(match[1]) * unit : Number.NaN;
  if (!Number.isSafeInteger(bytes) || bytes <= 0) {
    throw new CompactError(
      `"${text}" is not a size in bytes (a whole number, optionally with KB, MB, GB, KiB, MiB or GiB)`,
      { code: 'INVALID_OPTIONS', path },
    );
  }
  return bytes;
}

/** True when the request declares a `content-length` past `maxBytes`. */
export function declaredTooLarge(incoming: IncomingMessage, maxBytes: number): boolean {
  const declared = Number(incoming.headers['content-length']);
  return Number.isFinite(declared) && declared > maxBytes;
}

/** Reads the whole body, or stops reading once it passes `maxBytes` and resolves `too-large`. */
export function readBody(incoming: IncomingMessage, maxBytes: number): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) {
        chunks.push(chunk);
        return;
      }
      // The rest is not kept: Node discards it once the 413 is sent.
      incoming.off('data', onData);
      incoming.pause();
      chunks.length = 0;
      resolve('too-large');
    };
    incoming.on('data', onData);
    incoming.on('end', () => resolve(Buffer.concat(chunks)));
    incoming.on('error', reject);
  });
}

/** The body as a stream that fails once it passes `maxBytes`; `exceeded` tells why it failed. */
export function limitedBody(incoming: IncomingMessage, maxBytes: number) {
  let size = 0;
  const state = { exceeded: false };
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > maxBytes) {
        state.exceeded = true;
        incoming.unpipe(counter);
        incoming.pause();
        done(new Error(`request body over ${maxBytes} bytes`));
        return;
      }
      done(null, chunk);
    },
  });
  incoming.on('error', (error) => counter.destroy(error));
  incoming.pipe(counter);
  return { stream: counter, exceeded: () => state.exceeded };
}

/**
 * Answers 413 in the provider's error shape. The connection stays open: closing it with the body
 * still arriving would reset it, and the client could lose the 413 it is about to read.
 */
export function writeTooLarge(
  response: ServerResponse,
  provider: ReturnType<typeof providerOf>,
  maxBytes: number,
): void {
  writeProviderError(
    response,
    provider,
    413,
    `agent-compact proxy: request body over ${maxBytes} bytes (--max-body)`,
  );
}
