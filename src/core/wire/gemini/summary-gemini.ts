/** The summary call on the Gemini API, borrowing the request being compacted. */
import { readableHistory } from '../../summary/readable-history.js';
import type { SummaryRequest } from '../../summary/summary-model.js';
import type { SummaryCall } from '../dialect.js';
import { geminiField, geminiFieldName, geminiProtoName } from './gemini-field-names.js';
import { toGeminiContents } from './gemini-write.js';

/**
 * The `same` summarizer's call for a Gemini request: `:generateContent` (never streamed) on the
 * same model and query (so a `?key=` goes with it), the request's settings and tools kept, the
 * conversation replaced by the summary request's; a JSON mode or a forced function call (mode ANY)
 * is left out, as a summary is text. Each field the call writes goes under the name the client
 * used (`generation_config` or `generationConfig`), so none is named twice.
 */
export function geminiSummaryCall(
  url: URL,
  body: Record<string, unknown>,
  request: SummaryRequest,
): SummaryCall {
  const target = new URL(url);
  target.pathname = target.pathname.replace(/:streamGenerateContent$/, ':generateContent');
  target.searchParams.delete('alt');
  const systemName = geminiFieldName(body, 'systemInstruction');
  const configName = geminiFieldName(body, 'generationConfig');
  const toolConfigName = geminiFieldName(body, 'toolConfig');
  const {
    [systemName]: _system,
    [configName]: generationConfig,
    [toolConfigName]: toolConfig,
    contents: _contents,
    ...rest
  } = body;
  const system =
    typeof request.system === 'string'
      ? request.system
      : request.system?.map((block) => block.text).join('\n');
  return {
    url: target,
    body: {
      ...rest,
      ...keptToolConfig(toolConfigName, toolConfig),
      ...(system ? { [systemName]: { parts: [{ text: system }] } } : {}),
      contents: toGeminiContents(readableHistory(request.messages)),
      [configName]: summaryGenerationConfig(generationConfig, request.maxOutputTokens),
    },
  };
}

/**
 * Output settings the summary call does not take from the client, in either spelling: JSON output
 * (a summary is text) and the output limit (the summary's own replaces it).
 */
const REPLACED_OUTPUT_SETTINGS = [
  'responseMimeType',
  'responseSchema',
  'responseJsonSchema',
  'maxOutputTokens',
].flatMap((name) => [name, geminiProtoName(name)]);

/** The client's generation config less its JSON output, with the summary's output limit. */
function summaryGenerationConfig(config: unknown, maxOutputTokens: number): Record<string, unknown> {
  const settings = typeof config === 'object' && config !== null ? (config as Record<string, unknown>) : {};
  const kept = Object.fromEntries(
    Object.entries(settings).filter(([name]) => !REPLACED_OUTPUT_SETTINGS.includes(name)),
  );
  return { ...kept, [geminiFieldName(settings, 'maxOutputTokens')]: maxOutputTokens };
}

/**
 * The client's tool config under its name, unless it makes every answer a function call (mode ANY),
 * which a summary must not be.
 */
function keptToolConfig(name: string, toolConfig: unknown): Record<string, unknown> {
  if (toolConfig === undefined) return {};
  const callingConfig =
    typeof toolConfig === 'object' && toolConfig !== null
      ? geminiField(toolConfig as Record<string, unknown>, 'functionCallingConfig')
      : undefined;
  return (callingConfig as { mode?: unknown } | undefined)?.mode === 'ANY' ? {} : { [name]: toolConfig };
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
