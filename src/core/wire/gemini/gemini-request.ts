/**
 * The conversation inside a Gemini `generateContent` body: `contents` is read and written back;
 * `systemInstruction` and `tools` are counted, never changed (under their JSON names or the proto's,
 * `system_instruction` and `function_declarations`, both of which the API reads); every other field
 * (`generationConfig`, `cachedContent`, `toolConfig`, `safetySettings`, …) is kept as it came.
 */
import type { Message } from '../../model/messages.js';
import type { RequestBody, RequestConversation, ToolDefinition } from '../../model/request.js';
import { isRecord } from '../_internal/validate-helpers.js';
import { geminiField } from './gemini-field-names.js';
import { fromGeminiContents } from './gemini-format.js';
import { withReadResponses } from './gemini-read-responses.js';
import type { GeminiContent } from './gemini-types.js';
import { toGeminiContents } from './gemini-write.js';

/** Top-level fields of a `generateContent` body that no other API has. */
export const GEMINI_REQUEST_FIELDS = ['contents', 'systemInstruction', 'generationConfig', 'cachedContent'];

/** True when a request body is a Gemini `generateContent` body (it has `contents`, no `messages`). */
export function isGeminiRequest(body: Record<string, unknown>): boolean {
  return Object.hasOwn(body, 'contents') && !Object.hasOwn(body, 'messages') && !Object.hasOwn(body, 'input');
}

/**
 * Reads the conversation of a `generateContent` body.
 *
 * @throws {CompactError} `INVALID_TRANSCRIPT` with the body path when `contents`, a content or its
 *   `parts` has the wrong type (the API's first rules).
 */
export function readGeminiRequest(body: RequestBody): RequestConversation {
  const { messages, system } = fromGeminiContents(body.contents, {
    systemInstruction: geminiField(body, 'systemInstruction'),
  });
  const tools = geminiTools(body.tools);
  return {
    messages,
    ...(system === undefined ? {} : { system }),
    ...(tools.length > 0 ? { tools } : {}),
    write: (compacted: readonly Message[]) => ({
      contents: withOriginals(compacted, messages, body.contents as GeminiContent[]),
    }),
  };
}

/** The client's own content objects for messages the compactor left as they were (same objects). */
function withOriginals(
  compacted: readonly Message[],
  read: readonly Message[],
  contents: readonly GeminiContent[],
): GeminiContent[] {
  const originals = new Map<Message, GeminiContent>();
  for (const [index, message] of read.entries()) originals.set(message, contents[index]!);
  const written = toGeminiContents(withReadResponses(compacted, read));
  return compacted.map((message, index) => originals.get(message) ?? written[index]!);
}

/**
 * The function declarations of `tools[].functionDeclarations` (or `function_declarations`), as tool
 * definitions to count
 * (`parameters` or `parametersJsonSchema` as the schema); other tools (`googleSearch`,
 * `codeExecution`) count as their JSON.
 */
export function geminiTools(tools: unknown): ToolDefinition[] {
  if (!Array.isArray(tools)) return [];
  // The same definitions come on every request: keep one converted list per array (counts cache by object).
  const cached = convertedTools.get(tools);
  if (cached) return cached;
  const converted = convertTools(tools);
  convertedTools.set(tools, converted);
  return converted;
}

const convertedTools = new WeakMap<object, ToolDefinition[]>();

function convertTools(tools: readonly unknown[]): ToolDefinition[] {
  return tools.flatMap((tool: unknown): ToolDefinition[] => {
    if (!isRecord(tool)) return [];
    const declarations = geminiField(tool, 'functionDeclarations');
    if (!Array.isArray(declarations)) return [tool as ToolDefinition];
    return declarations.filter(isRecord).map((declaration) => {
      const { parameters, parametersJsonSchema, ...rest } = declaration;
      const schema = parametersJsonSchema ?? parameters;
      return { ...rest, ...(schema === undefined ? {} : { input_schema: schema }) } as ToolDefinition;
    });
  });
}
