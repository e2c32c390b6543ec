/**
 * Request bodies sent compressed (`Content-Encoding: gzip`, `br`, `deflate`, `zstd`): decoded so
 * their conversation can be compacted, then sent upstream uncompressed. An encoding this Node
 * cannot decode (zstd before Node 22.15) goes upstream untouched, and the log says why.
 */

import * as buffer from 'node:buffer';
import type { IncomingHttpHeaders } from 'node:http';
import * as zlib from 'node:zlib';

/** What became of a request body's encoding. */
export type DecodedBody =
  | { type: 'identity'; raw: Buffer; headers: IncomingHttpHeaders }
  | { type: 'skipped'; reason: string };

type Decoder = (input: Buffer, options: { maxOutputLength: number }) => Buffer;

/** zstd arrived in node:zlib in Node 22.15; looked up so older Nodes skip it instead of failing. */
const zstdDecompressSync = (zlib as unknown as { zstdDecompressSync?: Decoder }).zstdDecompressSync;

const decoders: Record<string, Decoder | undefined> = {
  gzip: zlib.gunzipSync,
  'x-gzip': zlib.gunzipSync,
  deflate: zlib.inflateSync,
  br: zlib.brotliDecompressSync,
  zstd: zstdDecompressSync,
};

/**
 * The body as plain bytes with headers to match, or why it must pass through as it came. A body
 * that would decode past `maxBytes` (`--max-body`) is never decoded whole: it goes on as it came.
 */
export function decodeRequestBody(
  raw: Buffer,
  headers: IncomingHttpHeaders,
  maxBytes = Number.MAX_SAFE_INTEGER,
): DecodedBody {
  const encoding = String(headers['content-encoding'] ?? 'identity')
    .trim()
    .toLowerCase();
  if (encoding === '' || encoding === 'identity') return { type: 'identity', raw, headers };
  const decode = decoders[encoding];
  if (decode === undefined) return { type: 'skipped', reason: `skipped: content-encoding ${encoding}` };
  let decoded: Buffer;
  try {
    decoded = decode(raw, { maxOutputLength: Math.min(maxBytes, buffer.kMaxLength) });
  } catch (error) {
    const tooLarge = (error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE';
    const why = tooLarge ? `decodes past ${maxBytes} bytes` : 'did not decode';
    return { type: 'skipped', reason: `skipped: content-encoding ${encoding} ${why}` };
  }
  const { 'content-encoding': _encoding, ...rest } = headers;
  return { type: 'identity', raw: decoded, headers: rest };
}
