import { fakeFile } from '../../conversation/session-builder.test-utils.js';
import type { GeminiContent } from './gemini-types.js';

/**
 * A Gemini CLI-like conversation: one user prompt, then `steps` model steps each calling
 * `read_file` (the first call signed, as Gemini 3 does) and the user answering with a large output.
 */
export function geminiSession(
  steps: number,
  { lines = 200, ids = true, images = false } = {},
): GeminiContent[] {
  const contents: GeminiContent[] = [{ role: 'user', parts: [{ text: 'Fix the failing tests in /repo.' }] }];
  for (let step = 0; step < steps; step++) {
    const id = `call_${step}`;
    const path = `src/file${step}.ts`;
    contents.push({
      role: 'model',
      parts: [
        { text: `Reading ${path}.`, thought: true },
        {
          functionCall: { ...(ids ? { id } : {}), name: 'read_file', args: { absolute_path: path } },
          thoughtSignature: `c2lnbmF0dXJl${step}`,
        },
      ],
    });
    contents.push({
      role: 'user',
      parts: [
        {
          functionResponse: {
            ...(ids ? { id } : {}),
            name: 'read_file',
            response: { output: fakeFile(path, lines) },
            // As Gemini CLI sends a file it read on Gemini 3: the image in the response's own parts.
            ...(images ? { parts: [{ inlineData: { mimeType: 'image/png', data: screenshot(step) } }] } : {}),
          },
        },
      ],
    });
  }
  return contents;
}

/**
 * The contents with each function response answering as a non-blocking call's do: an id of its own
 * (`r` and its content's index), `willContinue` (more answers follow) and `scheduling`.
 */
export function nonBlockingResponses(contents: GeminiContent[]): GeminiContent[] {
  return contents.map((content, index) => ({
    ...content,
    parts: content.parts.map((part) =>
      part.functionResponse
        ? {
            ...part,
            functionResponse: {
              ...part.functionResponse,
              id: `r${index}`,
              willContinue: true,
              scheduling: 'WHEN_IDLE',
            },
          }
        : part,
    ),
  }));
}

/** A distinct base64 "screenshot" per step, about 12 KB. */
export function screenshot(step: number): string {
  return `iVBORw0KGgo${String(step).padStart(4, '0')}`.repeat(800);
}

/** A whole `generateContent` body around {@link geminiSession}, with the fields Gemini CLI sends. */
export function geminiBody(steps: number, options: { lines?: number; ids?: boolean; images?: boolean } = {}) {
  return {
    contents: geminiSession(steps, options),
    systemInstruction: { role: 'user', parts: [{ text: 'You are an interactive CLI agent.' }] },
    tools: [
      {
        functionDeclarations: [
          {
            name: 'read_file',
            description: 'Reads a file.',
            parametersJsonSchema: { type: 'object', properties: { absolute_path: { type: 'string' } } },
          },
        ],
      },
    ],
    generationConfig: { temperature: 0, thinkingConfig: { includeThoughts: true } },
    cachedContent: 'cachedContents/abc123',
  };
}

/** Part fields with a proto name of their own, as a client of the REST API may write them. */
const protoNames: Record<string, string> = {
  functionCall: 'function_call',
  functionResponse: 'function_response',
  thoughtSignature: 'thought_signature',
  inlineData: 'inline_data',
  fileData: 'file_data',
  mimeType: 'mime_type',
  fileUri: 'file_uri',
  executableCode: 'executable_code',
  codeExecutionResult: 'code_execution_result',
};

/** The contents with every part field written under its proto name (`function_response`). */
export function protoNamed<T>(contents: T): T {
  return JSON.parse(
    JSON.stringify(contents, (_key, value: unknown) =>
      typeof value === 'object' && value !== null && !Array.isArray(value)
        ? Object.fromEntries(Object.entries(value).map(([key, field]) => [protoNames[key] ?? key, field]))
        : value,
    ),
  ) as T;
}
