/**
 * A parsed request's body read within `--max-memory` (`in-flight.ts`). A body of declared length is
 * admitted before a byte of it is read, so a request with no room waits holding only its headers:
 * its body stays in the socket and TCP holds the client's writes back. A chunked body's size is
 * known only once read, so it is read first and waits holding its bytes.
 */
import type { IncomingMessage } from 'node:http';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Admitted } from './in-flight.js';
import { readBody } from './upstream/request-body.js';

/** A body read whole and its reservation (none past `--max-body`), or a client that left while it waited. */
export type AdmittedBody =
  | { type: 'read'; received: Buffer | 'too-large'; admission: Admitted | undefined }
  | { type: 'closed' };

/** Waits for room for `bodyBytes`; undefined when the request was answered or dropped instead. */
export type Admit = (bodyBytes: number) => Promise<Admitted | undefined>;

/**
 * Reads the body of `incoming` (up to `maxBodyBytes`), admitted by `admit` before the read when its
 * length is declared, after it otherwise. Undefined when `admit` answered or dropped the request.
 */
export async function readAdmittedBody(
  incoming: IncomingMessage,
  maxBodyBytes: number,
  admit: Admit,
): Promise<AdmittedBody | undefined> {
  const declared = declaredLength(incoming);
  if (declared === undefined) {
    const received = await readBody(incoming, maxBodyBytes);
    if (received === 'too-large') return { type: 'read', received, admission: undefined };
    const admission = await admit(received.length);
    return admission && { type: 'read', received, admission };
  }
  const admission = await admit(declared);
  if (admission === undefined) return undefined;
  try {
    const received = await readBody(incoming, maxBodyBytes);
    if (admission.waited && (await leftWhileWaiting(incoming))) {
      admission.release();
      return { type: 'closed' };
    }
    return { type: 'read', received, admission };
  } catch (error) {
    admission.release();
    // A body that waited unread and then breaks off is its client having left meanwhile.
    if (admission.waited) return { type: 'closed' };
    throw error;
  }
}

/** The body's `content-length`, undefined when it has none (chunked) or one no number reads. */
function declaredLength(incoming: IncomingMessage): number | undefined {
  const declared = Number(incoming.headers['content-length'] ?? Number.NaN);
  return Number.isSafeInteger(declared) && declared >= 0 ? declared : undefined;
}

/**
 * Whether the client went away while its body waited unread. Its end of the connection (FIN) sits
 * behind the body in the socket, so nothing saw it while nobody read; the read that emptied the
 * socket reads it too, or the next poll does (libuv reads at most 32 chunks a turn): two turns of
 * the event loop, then the socket says whether it ended.
 */
async function leftWhileWaiting(incoming: IncomingMessage): Promise<boolean> {
  await nextTurn();
  await nextTurn();
  const { socket } = incoming;
  return socket.destroyed || socket.readableEnded;
}
