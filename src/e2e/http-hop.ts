/**
 * A recording HTTP hop for the end-to-end runs: it sits between two parties, keeps every request
 * body it passes on, and can answer some requests itself the way a provider would.
 */
import { createServer, type IncomingMessage, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream';

/** A request the hop passed on. */
export interface HopRequest {
  method: string;
  path: string;
  body: Record<string, unknown> | undefined;
}

/** An answer the hop gives instead of passing the request on. */
export interface HopAnswer {
  status: number;
  body: unknown;
}

/** A running hop. */
export interface HttpHop {
  url: string;
  requests: HopRequest[];
  close(): Promise<void>;
}

/** Starts a hop on 127.0.0.1 in front of `target`. */
export async function startHttpHop(
  target: string,
  answer: (request: HopRequest) => HopAnswer | undefined = () => undefined,
): Promise<HttpHop> {
  const requests: HopRequest[] = [];
  const server = createServer((incoming, response) => {
    readAll(incoming).then(
      (raw) => {
        const entry: HopRequest = {
          method: incoming.method ?? 'GET',
          path: incoming.url ?? '/',
          body: parse(raw),
        };
        const own = answer(entry);
        if (own) {
          response.writeHead(own.status, { 'content-type': 'application/json' });
          response.end(JSON.stringify(own.body));
          return;
        }
        requests.push(entry);
        const outgoing = request(
          `${target}${entry.path}`,
          { method: entry.method, headers: incoming.headers },
          (upstream) => {
            response.writeHead(upstream.statusCode ?? 502, upstream.headers);
            // `pipe` leaves the client's answer open when the one behind it breaks off; `pipeline`
            // breaks it too, as the agent would see the break without the hop.
            pipeline(upstream, response, () => {});
          },
        );
        outgoing.on('error', () => response.destroy());
        outgoing.end(raw);
      },
      () => response.destroy(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readAll(incoming: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => resolve(Buffer.concat(chunks)));
    incoming.on('error', reject);
  });
}

function parse(raw: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(raw.toString('utf8'));
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
