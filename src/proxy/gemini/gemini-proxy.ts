/**
 * What the proxy does differently for the Gemini API: its routes
 * (`/v1beta/models/{model}:generateContent` and `:streamGenerateContent`), its usage
 * (`usageMetadata`, read by its dialect) and the `same` summarizer's request and answer.
 */
import type { SummaryRequest, SummaryResult } from '../../core/summary/summary-model.js';
import { geminiUsage } from '../../core/wire/gemini/gemini-usage.js';
import { toGeminiContents } from '../../core/wire/gemini/gemini-write.js';

// Its home is the Gemini dialect now; re-exported for the proxy modules that read it here.
export { geminiUsage };

/** `…/models/{model}:generateContent` or `:streamGenerateContent`, after any prefix. */
const compactedPath = /\/models\/[^/:]+:(generateContent|streamGenerateContent)$/;
/** Any Gemini model method (`countTokens`, `embedContent`…), after any prefix. */
const geminiPath = /\/models\/[^/:]+:[A-Za-z]+$/;

/** True for the two Gemini paths whose conversation the proxy compacts. */
export function isGeminiCompactedPath(pathname: string): boolean {
  return compactedPath.test(pathname);
}

/** True for any Gemini model method path. */
export function isGeminiPath(pathname: string): boolean {
  return geminiPath.test(pathname);
}

/**
 * The `same` summarizer's call for a Gemini request: `:generateContent` (never streamed) on the
 * same model and query (so a `?key=` goes with it), the request's settings and tools kept, the
 * conversation replaced by the summary request's.
 */
export function geminiSummaryCall(
  url: URL,
  body: Record<string, unknown>,
  request: SummaryRequest,
): { url: URL; body: Record<string, unknown> } {
  const target = new URL(url);
  target.pathname = target.pathname.replace(/:streamGenerateContent$/, ':generateContent');
  target.searchParams.delete('alt');
  const { systemInstruction: _system, contents: _contents, generationConfig, ...rest } = body;
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
      ...(system ? { systemInstruction: { parts: [{ text: system }] } } : {}),
      contents: toGeminiContents(request.messages),
      generationConfig: { ...kept, maxOutputTokens: request.maxOutputTokens },
    },
  };
}

/** The summary text and usage of a `generateContent` answer (thought parts left out). */
export function geminiSummaryResult(parsed: Record<string, unknown>): SummaryResult {
  const candidates = Array.isArray(parsed.candidates) ? parsed.candidates : [];
  const parts: unknown[] = candidates[0]?.content?.parts ?? [];
  const text = parts
    .filter((part): part is { text: string } => {
      const record = part as { text?: unknown; thought?: unknown };
      return typeof record.text === 'string' && record.thought !== true;
    })
    .map((part) => part.text)
    .join('');
  const usage = geminiUsage(parsed);
  return {
    text,
    usage: {
      ...(usage?.prompt_tokens === undefined ? {} : { inputTokens: usage.prompt_tokens }),
      ...(usage?.completion_tokens === undefined ? {} : { outputTokens: usage.completion_tokens }),
    },
  };
}
