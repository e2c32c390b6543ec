// The requests the proxy suite sends: routes, bodies of each kind, and one timed POST.
import { Agent, request } from 'node:http';

/** Tokens of the large request (plain text turns, below the thresholds). */
export const LARGE_REQUEST_TOKENS = 100_000;

export const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** Where a request goes and with which headers (the API's key header). */
export interface Route {
  path: string;
  headers: Record<string, string>;
}

export const anthropicRoute: Route = {
  path: '/v1/messages',
  headers: {
    'content-type': 'application/json',
    'x-api-key': 'bench-key',
    'anthropic-version': '2023-06-01',
  },
};
const geminiHeaders = { 'content-type': 'application/json', 'x-goog-api-key': 'bench-key' };
export const geminiRoute: Route = {
  path: '/v1beta/models/gemini-bench:generateContent',
  headers: geminiHeaders,
};
export const geminiStreamRoute: Route = {
  path: '/v1beta/models/gemini-bench:streamGenerateContent?alt=sse',
  headers: geminiHeaders,
};

/** One POST; resolves with the time to the first body byte and to the end, in milliseconds. */
export function post(
  origin: string,
  body: string,
  extra: Record<string, string> = {},
  route: Route = anthropicRoute,
): Promise<{ first: number; total: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let first = 0;
    const outgoing = request(
      `${origin}${route.path}`,
      { method: 'POST', agent, headers: { ...route.headers, ...extra } },
      (answer) => {
        answer.on('data', () => {
          if (first === 0) first = performance.now() - started;
        });
        answer.on('end', () => {
          if (answer.statusCode !== 200) reject(new Error(`status ${answer.statusCode}`));
          else resolve({ first, total: performance.now() - started });
        });
        answer.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

export function requestBody(messages: unknown[], stream = false): string {
  return JSON.stringify({
    model: 'claude-bench',
    max_tokens: 64,
    ...(stream ? { stream: true } : {}),
    messages,
  });
}

/**
 * A system prompt and tool list the size of a coding agent's (about 62 KB, 15k tokens): what every
 * request of Claude Code carries before its first message, sent again unchanged on every turn.
 */
function agentSizedFixedPart(): { system: unknown[]; tools: unknown[] } {
  const field = { type: 'string', description: 'A field of the tool input. '.repeat(4) };
  const properties = Object.fromEntries(Array.from({ length: 8 }, (_, index) => [`field_${index}`, field]));
  return {
    system: [{ type: 'text', text: 'You are a coding agent. '.repeat(520) }],
    tools: Array.from({ length: 20 }, (_, index) => ({
      name: `tool_${index}`,
      description: 'Does a thing with files and commands. '.repeat(30),
      input_schema: { type: 'object', properties, required: ['field_0'] },
    })),
  };
}

/** A small streamed conversation with the agent-sized system prompt and tools, in Claude Code's key order. */
export function agentSizedRequestBody(session: number, turns: number): string {
  const streamed = JSON.parse(requestBody(smallConversation(session, turns), true)) as object;
  return JSON.stringify({ ...streamed, ...agentSizedFixedPart() });
}

export function smallConversation(session: number, turns: number): unknown[] {
  const messages: unknown[] = [{ role: 'user', content: `Session ${session}: list the files.` }];
  for (let turn = 0; turn < turns; turn += 1) {
    messages.push(
      { role: 'assistant', content: `Turn ${turn} answer.` },
      { role: 'user', content: `Next ${turn}.` },
    );
  }
  return messages;
}

/** The small conversation as a Gemini `generateContent` body. */
export function geminiRequestBody(session: number, turns: number): string {
  const contents = smallConversation(session, turns).map((message) => {
    const { role, content } = message as { role: string; content: string };
    return { role: role === 'assistant' ? 'model' : 'user', parts: [{ text: content }] };
  });
  return JSON.stringify({ contents, generationConfig: { maxOutputTokens: 64 } });
}

/** Plain text turns (no tool results, which micro compaction would mask), below the thresholds. */
export function largeConversation(): unknown[] {
  const line = 'const value = compute(input, options); // a line of a file the user pasted\n';
  const perTurn = 2_000;
  const turns = Math.ceil(LARGE_REQUEST_TOKENS / perTurn);
  const messages: unknown[] = [];
  for (let turn = 0; turn < turns; turn += 1) {
    messages.push(
      { role: 'user', content: `File ${turn}:\n${line.repeat((perTurn * 4) / line.length)}` },
      { role: 'assistant', content: `Read file ${turn}.` },
    );
  }
  messages.push({ role: 'user', content: 'Summarize.' });
  return messages;
}

/** One request of each kind the rows send, by index: the warm-up cycles through them. */
export function warmUpRequest(index: number): { body: string; route: Route } {
  const turns = index % 50;
  switch (index % 5) {
    case 0:
      return { body: requestBody(smallConversation(10, turns)), route: anthropicRoute };
    case 1:
      return { body: requestBody(smallConversation(11, turns), true), route: anthropicRoute };
    case 2:
      return { body: agentSizedRequestBody(12, turns), route: anthropicRoute };
    case 3:
      return { body: geminiRequestBody(13, turns), route: geminiRoute };
    default:
      return { body: geminiRequestBody(14, turns), route: geminiStreamRoute };
  }
}
