// A bare pass-through hop for the proxy benchmark's floor: what any Node proxy in front of the
// model costs before it does anything. It reads the whole body (as a proxy that compacts must),
// forwards it over a keep-alive socket and pipes the answer back. No compaction code at all.
// `node dist/bench/bare-hop.js UPSTREAM` prints `listening on URL`.
import { Agent, createServer, request } from 'node:http';

const upstream = new URL(process.argv[2] ?? 'http://127.0.0.1:1');
const agent = new Agent({ keepAlive: true });

const server = createServer((incoming, outgoing) => {
  const chunks: Buffer[] = [];
  incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
  incoming.on('end', () => {
    const body = Buffer.concat(chunks);
    const forwarded = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: incoming.url,
        method: incoming.method,
        agent,
        headers: { ...incoming.headers, host: upstream.host, 'content-length': String(body.length) },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    forwarded.end(body);
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (typeof address === 'object' && address) console.log(`listening on http://127.0.0.1:${address.port}`);
});
