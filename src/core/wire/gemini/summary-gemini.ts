/** The summary call on the Gemini API, borrowing the request being compacted. */
import { readableHistory } from '../../summary/readable-history.js';
import type { SummaryRequest } from '../../summary/summary-model.js';
import type { SummaryCall } from '../dialect.js';
import { toGeminiContents } from './gemini-write.js';

/**
 * The `same` summarizer's call for a Gemini request: `:generateContent` (never streamed) on the
 * same model and query (so a `?key=` goes with it), the request's settings and tools kept, the
 * conversation replaced by the summary request's; a JSON mode or a forced function call (mode ANY)
 * is left out, as a summary is text.
 */
export function geminiSummaryCall(
  url: URL,
  body: Record<string, unknown>,
  request: SummaryRequest,
): SummaryCall {
  const target = new URL(url);
  target.pathname = target.pathname.replace(/:streamGenerateContent$/, ':generateContent');
  target.searchParams.delete('alt');
  const { systemInstruction: _system, contents: _contents, generationConfig, toolConfig, ...rest } = body;
  // A summary is text: a `functionCallingConfig` of mode ANY would make it a function call.
  const mode = (toolConfig as { functionCallingConfig?: { mode?: unknown } } | undefined)
    ?.functionCallingConfig?.mode;
  const keptToolConfig = toolConfig === undefined || mode === 'ANY' ? {} : { toolConfig };
  const system =
    typeof request.system === 'string'
      ? request.system
      : request.system?.map((block) => block.text).join('\n');
  const config = typeof generationConfig === 'object' && generationConfig !== null ? generationConfig : {};
  const {
    responseMimeType: _mime,
    responseSchema: _schema,
    responseJsonSchema: _jsonSchema,
    ...kept
  } = config as Record<string, unknown>;
  return {
    url: target,
    body: {
      ...rest,
      ...keptToolConfig,
      ...(system ? { systemInstruction: { parts: [{ text: system }] } } : {}),
      contents: toGeminiContents(readableHistory(request.messages)),
      generationConfig: { ...kept, maxOutputTokens: request.maxOutputTokens },
    },
  };
}

/** The summary text of a `generateContent` answer (thought parts left out). */
export function geminiAnswerText(answer: Record<string, unknown>): string {
  const candidates = Array.isArray(answer.candidates) ? answer.candidates : [];
  const parts: unknown[] = candidates[0]?.content?.parts ?? [];
  return parts
    .filter((part): part is { text: string } => {
      const record = part as { text?: unknown; thought?: unknown };
      return typeof record.text === 'string' && record.thought !== true;
    })
    .map((part) => part.text)
    .join('');
}
