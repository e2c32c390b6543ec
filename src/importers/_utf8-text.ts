/**
 * Internal: a file's bytes read as UTF-8, failing at bytes that are not. Node's own `'utf8'`
 * decoding puts U+FFFD in their place: a file saved as Latin-1 or cut in the middle of a character
 * read as valid, and `compact` wrote the replaced text back out. JSON is UTF-8 (RFC 8259), and the
 * agents' transcripts are (every file of the shared data set is).
 */
import { createReadStream, type ReadStream } from 'node:fs';
import { Transform } from 'node:stream';
import { CompactError } from '../core/model/errors.js';

const NEWLINE = 0x0a;

/**
 * A decoder of a file's chunks in order: each chunk's text, or `UNREADABLE_INPUT` naming
 * `source:LINE` at the first line that is not UTF-8. `last` ends the text (a character cut short
 * at the end fails).
 */
export function createUtf8Decoder(source: string): (chunk: Uint8Array, last?: boolean) => string {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  let line = 1;
  const decode = (bytes: Uint8Array, stream: boolean) => {
    try {
      return decoder.decode(bytes, { stream });
    } catch (error) {
      throw new CompactError('not UTF-8 text (save the file as UTF-8)', {
        code: 'UNREADABLE_INPUT',
        path: `${source}:${line}`,
        cause: error,
      });
    }
  };
  return (chunk, last = false) => {
    // Line by line, so a failure names its line: a line feed is never inside a UTF-8 character.
    let text = '';
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline + 1;
      text += decode(chunk.subarray(start, end), true);
      if (newline !== -1) line += 1;
      start = end;
    }
    return last ? text + decode(new Uint8Array(0), false) : text;
  };
}

/** The text of a whole file's bytes (see {@link createUtf8Decoder}). */
export function decodeUtf8(bytes: Uint8Array, source: string): string {
  return createUtf8Decoder(source)(bytes, true);
}

/**
 * A file's text as a stream of strings, which errors with `UNREADABLE_INPUT` naming `source:LINE`
 * at bytes that are not UTF-8; `file` is the byte stream under it (for `bytesRead`).
 */
export function utf8FileStream(path: string, source: string): { file: ReadStream; text: Transform } {
  const file = createReadStream(path);
  const decode = createUtf8Decoder(source);
  const text = new Transform({
    decodeStrings: true,
    transform(chunk: Buffer, _encoding, done) {
      try {
        done(null, decode(chunk));
      } catch (error) {
        done(error as Error);
      }
    },
    flush(done) {
      try {
        done(null, decode(new Uint8Array(0), true));
      } catch (error) {
        done(error as Error);
      }
    },
  });
  // A read that fails (EIO, a directory) fails the text, so its reader hears of it.
  file.on('error', (error) => text.destroy(error));
  file.pipe(text);
  return { file, text };
}
