/**
 * Reading a Gemini `contents` array into the canonical (Anthropic-shaped) model.
 *
 * - A part's fields are read under their JSON names (`functionResponse`, `mimeType`) or their proto
 *   names (`function_response`, `mime_type`), which the REST API reads too (`gemini-field-names.ts`).
 * - Each `Content` becomes one message (`model` → `assistant`, `user` or no role → `user`), each
 *   part one block: `text` → text, `text` with `thought: true` → thinking (its `thoughtSignature`
 *   as the signature), `functionCall` → tool_use, `functionResponse` → tool_result (the images
 *   of its own `parts` after its text),
 *   `inlineData` → a base64 image, `fileData` → a URL image (so both are counted, masked and
 *   recallable like images), `executableCode` / `codeExecutionResult` and parts of unknown shape →
 *   blocks of their own type, kept whole.
 * - Calls without an `id` get a synthetic one (`gemini_call_<content>_<part>`, never written
 *   back). A response answers an open call of the model turn before it as the API pairs them
 *   (`validate-gemini.ts`): the call of its `id` when both carry one, else the first of its name;
 *   none when no call fits (a response of another name is an orphan, as the API sees it).
 * - LOSSLESS: every block read from a part keeps that part under `provider_data.gemini.part`; the
 *   writer ({@link toGeminiContents}) sends the part back as it came whenever the block still says
 *   what the part says, so an unchanged conversation round-trips byte for byte, and a part's
 *   `thoughtSignature` is never altered or dropped.
 */

import { CompactError } from '../../model/errors.js';
import type {
  ContentBlock,
  ImageBlock,
  Message,
  SystemPrompt,
  TextBlock,
  ToolResultBlock,
} from '../../model/messages.js';
import { isRecord } from '../_internal/validate-helpers.js';
import { dataFieldOf, geminiField } from './gemini-field-names.js';
import type { GeminiContent, GeminiPart } from './gemini-types.js';
import { contentsShapeProblem } from './validate-gemini.js';

/** The key under `provider_data` that holds {@link GeminiBlockData}. */
export const GEMINI_DATA_KEY = 'gemini';

/** Block type of an `executableCode` part. */
export const EXECUTABLE_CODE_BLOCK = 'gemini_executable_code';
/** Block type of a `codeExecutionResult` part. */
export const CODE_RESULT_BLOCK = 'gemini_code_execution_result';
/** Block type of a part of a shape this module does not model (kept whole under `part`). */
export const UNKNOWN_PART_BLOCK = 'gemini_part';

/** What a canonical block keeps of the Gemini part it was read from. */
export interface GeminiBlockData {
  /** The part as it came. */
  part: GeminiPart;
  /** The call had no `id`; the tool_use id was made up and is not written back. */
  syntheticId?: true;
  /** First block of a content that had no `role`. */
  roleAbsent?: true;
  /** A response with an `id` that answers a call without one (by name): its tool_use_id is the call's. */
  answersCallWithoutId?: true;
}

/** Options of {@link fromGeminiContents}. */
export interface FromGeminiOptions {
  /** The request's `systemInstruction`; its text parts become the system prompt. */
  systemInstruction?: unknown;
}

/** A conversation converted from Gemini `contents`. */
export interface FromGeminiResult {
  messages: Message[];
  /** The text of `systemInstruction`; absent when there is none. */
  system?: SystemPrompt;
}

/**
 * Converts Gemini `contents` to the canonical model.
 *
 * @throws {CompactError} `INVALID_TRANSCRIPT` (the API's rule) with the path (`contents`, `contents[3].parts`) when
 *   `contents` is not an array of objects with a `parts` array of objects.
 * @example
 * const { messages, system } = fromGeminiContents(body.contents, { systemInstruction: body.systemInstruction });
 */
export function fromGeminiContents(contents: unknown, options: FromGeminiOptions = {}): FromGeminiResult {
  const checked = contentsOf(contents);
  const messages: Message[] = [];
  checked.forEach((content, contentIndex) => {
    const previous = messages.at(-1);
    const known = converted.get(content);
    const message =
      known?.index === contentIndex && known.previous === previous
        ? known.message
        : messageOf(content, contentIndex, previous);
    if (message !== known?.message) converted.set(content, { index: contentIndex, previous, message });
    messages.push(message);
  });
  const system = systemOf(options.systemInstruction);
  return system ? { messages, system } : { messages };
}

/**
 * The message each content object was last read into, with what that reading depended on: its
 * index (synthetic call ids) and the message before it (the calls a response answers). A content
 * read again at the same index after the same message object gives the same message object, so a
 * caller that resends the same content objects (the proxy does, see `proxy/request-reuse.ts`) gets
 * the compactor's per-message caches for them. Contents and messages are never changed once read.
 */
const converted = new WeakMap<object, { index: number; previous: Message | undefined; message: Message }>();

function messageOf(content: GeminiContent, contentIndex: number, previous: Message | undefined): Message {
  const role = content.role === 'model' ? 'assistant' : 'user';
  const open = role === 'user' ? openCalls(previous) : [];
  const blocks = content.parts.map((part, partIndex) => blockOfPart(part, { contentIndex, partIndex, open }));
  if (content.role === undefined && blocks[0]) markRoleAbsent(blocks[0]);
  return { role, content: blocks };
}

/** The {@link GeminiBlockData} a block carries, if it was read from a Gemini part. */
export function geminiDataOf(block: ContentBlock): GeminiBlockData | undefined {
  const data = (block as { provider_data?: Record<string, unknown> }).provider_data?.[GEMINI_DATA_KEY];
  return typeof data === 'object' && data !== null ? (data as GeminiBlockData) : undefined;
}

/** Notes on the first block that its content had no `role` (an unknown part keeps it on itself). */
function markRoleAbsent(block: ContentBlock): void {
  const data = geminiDataOf(block);
  if (data) data.roleAbsent = true;
  else (block as { roleAbsent?: true }).roleAbsent = true;
}

/** True when the block is the first of a content that had no `role`. */
export function roleWasAbsent(block: ContentBlock): boolean {
  return geminiDataOf(block)?.roleAbsent === true || (block as { roleAbsent?: unknown }).roleAbsent === true;
}

/** The synthetic tool_use id of the call at `contents[contentIndex].parts[partIndex]`. */
export function syntheticCallId(contentIndex: number, partIndex: number): string {
  return `gemini_call_${contentIndex}_${partIndex}`;
}

interface PartContext {
  contentIndex: number;
  partIndex: number;
  /** Calls of the previous model turn not answered yet (responses take them in order). */
  open: OpenCall[];
}

/**
 * The canonical block of one part. Exported for the writer, which compares a block with the block
 * its part would give to decide whether the part can go back as it came.
 */
export function blockOfPart(part: GeminiPart, context: PartContext): ContentBlock {
  const data: GeminiBlockData = { part };
  const block = bareBlockOfPart(part, context, data);
  if (block.type === UNKNOWN_PART_BLOCK) return block;
  // Set on the block just made rather than spread into a copy: the same keys in the same order
  // (so the same JSON and fingerprint), at a third of the cost on every content of every request.
  (block as { provider_data?: Record<string, unknown> }).provider_data = { [GEMINI_DATA_KEY]: data };
  return block;
}

function bareBlockOfPart(part: GeminiPart, context: PartContext, data: GeminiBlockData): ContentBlock {
  switch (dataFieldOf(part)) {
    case 'text':
      if (part.thought === true && typeof part.text === 'string') {
        const signature = geminiField(part, 'thoughtSignature');
        return { type: 'thinking', thinking: part.text, signature: (signature as string | undefined) ?? '' };
      }
      return typeof part.text === 'string' ? { type: 'text', text: part.text } : unknownPart(part);
    case 'functionCall':
      return callBlock(part, context, data);
    case 'functionResponse':
      return responseBlock(part, context, data);
    case 'inlineData':
    case 'fileData':
      return imageOfPart(part) ?? unknownPart(part);
    case 'executableCode':
      return { type: EXECUTABLE_CODE_BLOCK, value: geminiField(part, 'executableCode') };
    case 'codeExecutionResult':
      return { type: CODE_RESULT_BLOCK, value: geminiField(part, 'codeExecutionResult') };
    default:
      return unknownPart(part);
  }
}

/** The image block of an `inlineData` or `fileData` part (either spelling), if it is a whole one. */
function imageOfPart(part: GeminiPart): ImageBlock | undefined {
  const inline = geminiField(part, 'inlineData');
  if (isRecord(inline)) {
    const mimeType = geminiField(inline, 'mimeType');
    const base64 = inline.data;
    if (typeof mimeType !== 'string' || typeof base64 !== 'string') return undefined;
    return { type: 'image', source: { type: 'base64', media_type: mimeType, data: base64 } };
  }
  const file = geminiField(part, 'fileData');
  const uri = isRecord(file) ? geminiField(file, 'fileUri') : undefined;
  return typeof uri === 'string' ? { type: 'image', source: { type: 'url', url: uri } } : undefined;
}

function callBlock(part: GeminiPart, context: PartContext, data: GeminiBlockData): ContentBlock {
  const call = geminiField(part, 'functionCall');
  if (!isRecord(call) || typeof call.name !== 'string') return unknownPart(part);
  let id = call.id;
  if (typeof id !== 'string') {
    id = syntheticCallId(context.contentIndex, context.partIndex);
    data.syntheticId = true;
  }
  return { type: 'tool_use', id, name: call.name, input: call.args ?? {} };
}

function responseBlock(part: GeminiPart, context: PartContext, data: GeminiBlockData): ContentBlock {
  const response = geminiField(part, 'functionResponse');
  if (!isRecord(response) || typeof response.name !== 'string') return unknownPart(part);
  const { open } = context;
  // As the API pairs them (validate-gemini.ts): by id when both carry one, else by name, so a
  // response of another name answers no call and the canonical model shows what the API refuses.
  const { id } = response;
  const index = open.findIndex((call) =>
    typeof id === 'string' && !call.syntheticId ? call.id === id : call.name === response.name,
  );
  const [call] = index === -1 ? [] : open.splice(index, 1);
  if (call?.syntheticId && typeof id === 'string') data.answersCallWithoutId = true;
  const toolUseId =
    call?.id ??
    (typeof id === 'string' ? id : `gemini_response_${context.contentIndex}_${context.partIndex}`);
  return {
    type: 'tool_result',
    tool_use_id: toolUseId,
    ...withNestedImages(resultContent(response.response), response),
  };
}

/**
 * The images a response carries in its own `parts` (Gemini CLI puts a file it read there on
 * Gemini 3 models) join its text, so they are counted, and archived when the result is masked.
 * Parts it cannot read as images leave the content as it was: the part then goes back whole.
 */
function withNestedImages(
  result: Pick<ToolResultBlock, 'content' | 'is_error'>,
  response: Record<string, unknown>,
): Pick<ToolResultBlock, 'content' | 'is_error'> {
  const { parts } = response;
  if (!Array.isArray(parts) || parts.length === 0 || !parts.every(isRecord)) return result;
  // Read as top-level parts are, each keeping its part, so an unchanged one goes back as it came.
  const images = parts.map((part) =>
    blockOfPart(part as GeminiPart, { contentIndex: 0, partIndex: 0, open: [] }),
  );
  if (images.some((image) => image.type !== 'image')) return result;
  const text: TextBlock = { type: 'text', text: String(result.content) };
  return { ...result, content: [text, ...(images as ImageBlock[])] };
}

/**
 * A tool result's content from a `response` object: `{ output: "…" }` (what Gemini CLI sends)
 * is its text, `{ error: "…" }` an error; any other object its JSON.
 */
function resultContent(response: unknown): Pick<ToolResultBlock, 'content' | 'is_error'> {
  if (isRecord(response)) {
    const keys = Object.keys(response);
    if (keys.length === 1 && typeof response.output === 'string') return { content: response.output };
    if (keys.length === 1 && typeof response.error === 'string') {
      return { content: response.error, is_error: true };
    }
  }
  return { content: JSON.stringify(response ?? null) };
}

function unknownPart(part: GeminiPart): ContentBlock {
  return { type: UNKNOWN_PART_BLOCK, part };
}

/** A call a response may answer; `syntheticId` when the call carried no id of its own. */
interface OpenCall {
  id: string;
  name: string;
  syntheticId: boolean;
}

/** The calls of a model message, in order, that later responses may answer. */
function openCalls(previous: Message | undefined): OpenCall[] {
  if (previous?.role !== 'assistant' || typeof previous.content === 'string') return [];
  return previous.content.flatMap((block) =>
    block.type === 'tool_use'
      ? [
          {
            id: String(block.id),
            name: String(block.name),
            syntheticId: geminiDataOf(block)?.syntheticId === true,
          },
        ]
      : [],
  );
}

function systemOf(instruction: unknown): TextBlock[] | undefined {
  if (typeof instruction === 'string')
    return instruction === '' ? undefined : [{ type: 'text', text: instruction }];
  if (!isRecord(instruction) || !Array.isArray(instruction.parts)) return undefined;
  const blocks = instruction.parts.flatMap((part: unknown): TextBlock[] =>
    isRecord(part) && typeof part.text === 'string' && part.text !== ''
      ? [{ type: 'text', text: part.text }]
      : [],
  );
  return blocks.length > 0 ? blocks : undefined;
}

function contentsOf(contents: unknown): GeminiContent[] {
  const problem = contentsShapeProblem(contents);
  if (problem) throw new CompactError(problem.message, { code: 'INVALID_TRANSCRIPT', path: problem.path });
  (contents as { parts: unknown[] }[]).forEach(({ parts }, index) => {
    if (!parts.every(isRecord)) {
      throw new CompactError('parts must be an array of objects', {
        code: 'INVALID_TRANSCRIPT',
        path: `contents[${index}].parts`,
      });
    }
  });
  return contents as GeminiContent[];
}
