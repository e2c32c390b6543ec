/**
 * Pages of other sites against a proxy on 127.0.0.1, in real Chromium: a page whose host name
 * rebinds to 127.0.0.1 (same origin as the proxy, as far as the browser knows) cannot read the
 * sessions, and a page of another origin cannot post a request through the proxy.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { findBrowser, required, skipWithout } from '../../testing/browsers.test-utils.js';
import { useProxyHarness } from '../proxy-harness.test-utils.js';

const run = promisify(execFile);
const startProxyOver = useProxyHarness();
const chromium = await findBrowser('chromium');
const skipBrowser = skipWithout('chromium', chromium, 'dashboard rebinding test');

/** The attacker's name, resolved to 127.0.0.1 by Chromium's resolver rules: a rebound name. */
const REBOUND = 'rebound.test';
/** A model name only the victim's session holds. */
const SECRET_MODEL = 'claude-secret-model';

let directory: string | undefined;
let pages: Server | undefined;
afterEach(async () => {
  pages?.closeAllConnections();
  await new Promise((done) => (pages ? pages.close(done) : done(undefined)));
  if (directory) await rm(directory, { recursive: true, force: true });
  directory = undefined;
  pages = undefined;
});

/** The attacker's page: reads the sessions from its own origin and writes what it got into the page. */
const readSessionsPage = `<!doctype html><pre id="out">pending</pre><script>
fetch('/agent-compact/sessions').then(async (r) => {
  document.getElementById('out').textContent = 'status ' + r.status + ' ' + (await r.text());
}, (e) => { document.getElementById('out').textContent = 'failed ' + e; });
</script>`;

/** The attacker's page on another origin: a "simple" text/plain POST no preflight stops. */
const postPage = (proxyUrl: string) => `<!doctype html><pre id="out">pending</pre><script>
fetch(${JSON.stringify(`${proxyUrl}/v1/messages`)}, { method: 'POST', mode: 'no-cors',
  headers: { 'content-type': 'text/plain' },
  body: JSON.stringify({ model: 'claude-test', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }),
}).then(() => { document.getElementById('out').textContent = 'sent'; },
  (e) => { document.getElementById('out').textContent = 'failed ' + e; });
</script>`;

/** A web server standing in for the attacker's site: `/page.html` is `html`, anything else 404. */
async function servePages(html: () => string): Promise<string> {
  pages = createServer((request, response) => {
    if (request.url !== '/page.html') return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'text/html' }).end(html());
  });
  await new Promise<void>((done) => pages!.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
}

/** The victim's agent: one request whose session the dashboard then lists. */
async function victimRequest(proxyUrl: string): Promise<void> {
  const answer = await fetch(`${proxyUrl}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: SECRET_MODEL, max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }),
  });
  expect(answer.status).toBe(200);
  await answer.text();
}

/** The page's DOM once its scripts ran, with `rebound.test` resolving to 127.0.0.1. */
async function dumpDom(url: string): Promise<string> {
  directory = await mkdtemp(join(tmpdir(), 'rebinding-'));
  const { stdout } = await run(
    required('chromium', chromium),
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      `--user-data-dir=${directory}`,
      `--host-resolver-rules=MAP ${REBOUND} 127.0.0.1`,
      // Runs the page's fetches to their end before the DOM is dumped, in virtual time.
      '--virtual-time-budget=10000',
      '--dump-dom',
      url,
    ],
    { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
  );
  return stdout;
}

describe.skipIf(skipBrowser)('pages of other sites, in headless Chromium', () => {
  it('a page on a name rebound to 127.0.0.1 cannot read /agent-compact/sessions', async () => {
    const attacker = await servePages(() => readSessionsPage);
    // The proxy forwards what it does not serve itself: the attacker's page arrives through it,
    // from the proxy's own address and port, as after a DNS rebinding.
    const { proxy } = await startProxyOver(['Hi.'], {
      openaiUpstream: attacker,
      summarizer: 'extractive',
    });
    await victimRequest(proxy.url);
    const sessions = await (await fetch(`${proxy.url}/agent-compact/sessions`)).text();
    expect(sessions).toContain(SECRET_MODEL);
    const dom = await dumpDom(`http://${REBOUND}:${proxy.port}/page.html`);
    expect(dom).not.toContain(SECRET_MODEL);
    expect(dom).toContain(`Host \\"${REBOUND}:${proxy.port}\\" is not served`);
  });

  it('a rebound name given with allowHosts still gets no sessions without the token', async () => {
    const attacker = await servePages(() => readSessionsPage);
    const { proxy } = await startProxyOver(['Hi.'], {
      openaiUpstream: attacker,
      summarizer: 'extractive',
      allowHosts: [REBOUND],
      token: 'a-token-the-page-lacks',
    });
    await victimRequest(proxy.url);
    const dom = await dumpDom(`http://${REBOUND}:${proxy.port}/page.html`);
    // The page itself loads through the proxy; its read of the sessions is refused.
    expect(dom).toContain('status 401');
    expect(dom).not.toContain(SECRET_MODEL);
  });

  it('a page of another origin cannot post a request through the proxy', async () => {
    let proxyUrl = '';
    const attacker = await servePages(() => postPage(proxyUrl));
    const { proxy, server } = await startProxyOver(['Hi.']);
    proxyUrl = proxy.url;
    const dom = await dumpDom(`${attacker.replace('127.0.0.1', 'localhost')}/page.html`);
    // The browser sent it (an opaque answer); the proxy kept it from the upstream.
    expect(dom).toContain('sent');
    expect(server.requests).toHaveLength(0);
  });
});
