import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import WebSocket from 'ws';

interface BiDiAnswer {
  id?: number;
  type?: string;
  result?: Record<string, unknown>;
  error?: string;
  message?: string;
}

/**
 * A headless Firefox driven over WebDriver BiDi, the protocol Firefox serves itself since it
 * dropped CDP: no geckodriver and no patched browser build, only Debian's package.
 */
export class HeadlessFirefox {
  private nextId = 1;
  private readonly pending = new Map<number, (answer: BiDiAnswer) => void>();
  private context = '';

  private constructor(
    private readonly browser: ChildProcess,
    private readonly socket: WebSocket,
  ) {
    socket.on('message', (data) => {
      const answer = JSON.parse(String(data)) as BiDiAnswer;
      if (answer.id !== undefined) this.pending.get(answer.id)?.(answer);
    });
  }

  static async launch(binary: string, profile: string): Promise<HeadlessFirefox> {
    const browser = spawn(
      binary,
      ['--headless', '--no-remote', '--profile', profile, '--remote-debugging-port=0', 'about:blank'],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const address = await listeningAddress(browser);
    const socket = new WebSocket(`${address}/session`);
    await once(socket, 'open');
    const firefox = new HeadlessFirefox(browser, socket);
    await firefox.send('session.new', { capabilities: {} });
    const tree = await firefox.send('browsingContext.getTree', {});
    firefox.context = (tree.contexts as { context: string }[])[0]!.context;
    await firefox.send('browsingContext.setViewport', {
      context: firefox.context,
      viewport: { width: 1280, height: 1400 },
    });
    return firefox;
  }

  async send(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    const answered = new Promise<BiDiAnswer>((resolve) => this.pending.set(id, resolve));
    this.socket.send(JSON.stringify({ id, method, params }));
    const answer = await answered;
    this.pending.delete(id);
    if (answer.type === 'error') throw new Error(`${method}: ${answer.error}: ${answer.message}`);
    return answer.result ?? {};
  }

  async navigate(url: string): Promise<void> {
    await this.send('browsingContext.navigate', { context: this.context, url, wait: 'complete' });
  }

  /** Evaluates an expression in the page; a promise is awaited, the value comes back as JSON. */
  async evaluate<T>(expression: string): Promise<T> {
    const answer = await this.send('script.evaluate', {
      expression: `(async () => JSON.stringify(await (${expression})))()`,
      target: { context: this.context },
      awaitPromise: true,
    });
    const result = answer.result as { type: string; value?: string } | undefined;
    if (answer.type === 'exception' || result?.type !== 'string')
      throw new Error(`evaluate failed: ${JSON.stringify(answer.exceptionDetails ?? answer)}`);
    return JSON.parse(result.value!) as T;
  }

  async screenshot(): Promise<Buffer> {
    const answer = await this.send('browsingContext.captureScreenshot', { context: this.context });
    return Buffer.from(answer.data as string, 'base64');
  }

  async close(): Promise<void> {
    await this.send('browser.close', {}).catch(() => undefined);
    this.socket.close();
    if (this.browser.exitCode === null) {
      this.browser.kill();
      await once(this.browser, 'exit');
    }
  }
}

/** Firefox prints the address of its BiDi server on stderr once it listens. */
async function listeningAddress(browser: ChildProcess): Promise<string> {
  let seen = '';
  return new Promise((resolve, reject) => {
    browser.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /WebDriver BiDi listening on (ws:\/\/\S+)/.exec(seen);
      if (match) resolve(match[1]!);
    });
    browser.once('exit', (code) => reject(new Error(`firefox exited (${code}) before listening: ${seen}`)));
  });
}
