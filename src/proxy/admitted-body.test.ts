import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readAdmittedBody } from './admitted-body.js';
import type { Admitted } from './in-flight.js';

const body = Buffer.from('{"messages":[]}');

/** A request whose body is already all sent: its headers, the body written and ended. */
function incoming(headers: Record<string, string>) {
  const stream = new PassThrough();
  stream.end(body);
  return Object.assign(stream, { headers }) as unknown as IncomingMessage & PassThrough;
}

function admitted(waited = false): Admitted {
  return { type: 'admitted', waited, grow: () => {}, release: () => {} };
}

describe('readAdmittedBody', () => {
  it('admits a body of declared length before reading a byte of it', async () => {
    const request = incoming({ 'content-length': String(body.length) });
    const unread: number[] = [];
    const read = await readAdmittedBody(request, 1000, async (bytes) => {
      unread.push(request.readableLength);
      expect(bytes).toBe(body.length);
      return admitted();
    });
    expect(unread).toEqual([body.length]);
    expect(read).toMatchObject({ type: 'read', received: body });
  });

  it('reads a chunked body first, and admits it at the size read', async () => {
    const request = incoming({ 'transfer-encoding': 'chunked' });
    const asked: number[] = [];
    const read = await readAdmittedBody(request, 1000, async (bytes) => {
      asked.push(bytes);
      return admitted();
    });
    expect(asked).toEqual([body.length]);
    expect(read).toMatchObject({ type: 'read', received: body });
  });

  it('reads nothing of a request its admission answered or dropped', async () => {
    const request = incoming({ 'content-length': String(body.length) });
    expect(await readAdmittedBody(request, 1000, async () => undefined)).toBeUndefined();
    expect(request.readableLength).toBe(body.length);
  });
});
