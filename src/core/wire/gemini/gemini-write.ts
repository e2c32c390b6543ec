/**
 * Writing the canonical model back as Gemini `contents`: a block still saying what the part it
 * was read from says goes back as that part (byte for byte); a block the compactor wrote or
 * changed is written in the default shape, keeping its part's `thoughtSignature`, and in proto
 * names (`function_response`) when its part was written in them.
 */
import type {
  ContentBlock,
  ImageBlock,
  Message,
  ToolResultBlock,
  ToolUseBlock,
} from '../../model/messages.js';
import { isRecord } from '../_internal/validate-helpers.js';
import { geminiField, hasGeminiField, namesProtoFields, withProtoNames } from './gemini-field-names.js';
import {
  blockOfPart,
  CODE_RESULT_BLOCK,
  EXECUTABLE_CODE_BLOCK,
  GEMINI_DATA_KEY,
  type GeminiBlockData,
  geminiDataOf,
  roleWasAbsent,
  UNKNOWN_PART_BLOCK,
} from './gemini-format.js';
import type { GeminiContent, GeminiPart } from './gemini-types.js';

/** What the writer knows of each call: its name, whether its id was made up, the part it was read from. */
type CallIndex = Map<string, { name: string; syntheticId: boolean; part: GeminiPart | undefined }>;

/**
 * Converts canonical messages to Gemini `contents` (`assistant` → `model`). The system prompt is
 * not written: it stays in the request's `systemInstruction`.
 *
 * @example
 * const contents = toGeminiContents(fromGeminiContents(body.contents).messages); // equal to body.contents
 */
export function toGeminiContents(messages: readonly Message[]): GeminiContent[] {
  const calls = indexCalls(messages);
  return messages.map((message) => {
    const blocks: readonly ContentBlock[] =
      typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    const parts = blocks.map((block) => partOfBlock(block, calls));
    const first = blocks[0];
    const roleAbsent =
      first !== undefined && roleWasAbsent(first) && (first.type === UNKNOWN_PART_BLOCK || unchanged(first));
    if (roleAbsent && message.role === 'user') return { parts };
    return { role: message.role === 'assistant' ? 'model' : 'user', parts };
  });
}

function indexCalls(messages: readonly Message[]): CallIndex {
  const calls: CallIndex = new Map();
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    for (const block of message.content) {
      if (block.type !== 'tool_use') continue;
      const use = block as ToolUseBlock;
      const data = geminiDataOf(use);
      calls.set(use.id, { name: use.name, syntheticId: data?.syntheticId === true, part: data?.part });
    }
  }
  return calls;
}

/** True when the block still says exactly what the part it was read from says. */
function unchanged(block: ContentBlock): boolean {
  const data = geminiDataOf(block);
  if (!data) return false;
  const derived = blockOfPart(data.part, { contentIndex: 0, partIndex: 0, open: [] }) as Record<
    string,
    unknown
  >;
  // Ids the part did not carry were made up by the reader: take the block's.
  if (derived.type === 'tool_use' && typeof partData(data.part, 'functionCall')?.id !== 'string') {
    derived.id = (block as ToolUseBlock).id;
  }
  // A response that answers a call without an id holds that call's made-up id, not its own.
  if (derived.type === 'tool_result' && answersMadeUpId(data)) {
    derived.tool_use_id = (block as ToolResultBlock).tool_use_id;
  }
  return sameJson(withoutData(derived), withoutData(block as Record<string, unknown>));
}

/** True when the result's tool_use_id is not the id its part carries (none, or a made-up call's). */
function answersMadeUpId(data: GeminiBlockData): boolean {
  const id = partData(data.part, 'functionResponse')?.id;
  return typeof id !== 'string' || data.answersCallWithoutId === true;
}

/** The data object a part holds under `field` (either name), if it holds one. */
function partData(part: GeminiPart, field: string): Record<string, unknown> | undefined {
  const data = geminiField(part, field);
  return isRecord(data) ? data : undefined;
}

function partOfBlock(block: ContentBlock, calls: CallIndex): GeminiPart {
  const data = geminiDataOf(block);
  if (data && unchanged(block)) return data.part;
  const part = signedLike(defaultPart(block, calls), data?.part);
  const spelledLike = data?.part ?? answeredCallPart(block, calls);
  return spelledLike && namesProtoFields(spelledLike) ? withProtoNames(part) : part;
}

/** The part of the call a result answers: a result the compactor wrote is spelled as its call. */
function answeredCallPart(block: ContentBlock, calls: CallIndex): GeminiPart | undefined {
  return block.type === 'tool_result' ? calls.get((block as ToolResultBlock).tool_use_id)?.part : undefined;
}

/** A changed block of the same kind keeps its signature: the API checks it, the compactor never alters it. */
function signedLike(part: GeminiPart, original: GeminiPart | undefined): GeminiPart {
  const signature = original && geminiField(original, 'thoughtSignature');
  if (typeof signature !== 'string' || part.thoughtSignature !== undefined) return part;
  return sameKind(original!, part) ? { ...part, thoughtSignature: signature } : part;
}

function sameKind(original: GeminiPart, written: GeminiPart): boolean {
  return Object.keys(written).some((key) => key !== 'thoughtSignature' && hasGeminiField(original, key));
}

function defaultPart(block: ContentBlock, calls: CallIndex): GeminiPart {
  switch (block.type) {
    case 'text':
      return { text: String(block.text) };
    case 'thinking': {
      const signature = String(block.signature ?? '');
      return {
        text: String(block.thinking),
        thought: true,
        ...(signature ? { thoughtSignature: signature } : {}),
      };
    }
    case 'tool_use': {
      const use = block as ToolUseBlock;
      const synthetic = calls.get(use.id)?.syntheticId === true;
      const args = isRecord(use.input) ? use.input : {};
      return { functionCall: { ...(synthetic ? {} : { id: use.id }), name: use.name, args } };
    }
    case 'tool_result':
      return responsePart(block as ToolResultBlock, calls);
    case 'image':
      return imagePart(block as ImageBlock);
    case EXECUTABLE_CODE_BLOCK:
      return { executableCode: block.value as GeminiPart['executableCode'] };
    case CODE_RESULT_BLOCK:
      return { codeExecutionResult: block.value as GeminiPart['codeExecutionResult'] };
    case UNKNOWN_PART_BLOCK:
      return block.part as GeminiPart;
    default:
      // A block of another format (redacted thinking, a provider item): its JSON, as text.
      return { text: JSON.stringify(withoutData(block as Record<string, unknown>)) };
  }
}

function responsePart(result: ToolResultBlock, calls: CallIndex): GeminiPart {
  const call = calls.get(result.tool_use_id);
  const readFrom = geminiDataOf(result)?.part;
  const original = readFrom && partData(readFrom, 'functionResponse');
  const name = call?.name ?? (typeof original?.name === 'string' ? original.name : 'unknown');
  // A response keeps an id it carried, even when it answers a call that had none.
  const originalId = typeof original?.id === 'string' ? original.id : undefined;
  const id = call && !call.syntheticId ? result.tool_use_id : originalId;
  const { content } = result;
  const blocks = typeof content === 'string' ? [] : (content ?? []);
  // Images go back in the response's own `parts` when the client sent them there (a model that
  // takes them: Gemini CLI does so on Gemini 3 only); elsewhere they are named in its text.
  const nested = Array.isArray(original?.parts);
  const images = nested ? blocks.filter((block) => block.type === 'image') : [];
  const text =
    typeof content === 'string'
      ? content
      : blocks
          .filter((block) => !images.includes(block))
          .map((part) => (part.type === 'text' ? String(part.text) : `[${part.type}]`))
          .join('\n');
  const response = result.is_error ? { error: text } : { output: text };
  const parts = images.map((image) => partOfBlock(image, calls));
  return {
    functionResponse: {
      ...(id === undefined ? {} : { id }),
      name,
      response,
      ...(parts.length === 0 ? {} : { parts }),
      ...besideResponse(original),
    },
  };
}

/**
 * The fields a response part carried beside its id, name, response and parts (`willContinue`,
 * `scheduling` of a non-blocking call's answers): the compactor changes what a response says, not
 * how the API schedules it.
 */
function besideResponse(original: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!original) return {};
  const { id: _id, name: _name, response: _response, parts: _parts, ...beside } = original;
  return beside;
}

function imagePart(image: ImageBlock): GeminiPart {
  const { source } = image;
  if (source.type === 'base64' && typeof source.media_type === 'string' && typeof source.data === 'string') {
    return { inlineData: { mimeType: source.media_type, data: source.data } };
  }
  if (source.type === 'url' && typeof source.url === 'string') {
    const readFrom = geminiDataOf(image)?.part;
    const file = readFrom && partData(readFrom, 'fileData');
    const mimeType = file && geminiField(file, 'mimeType');
    return { fileData: { ...(typeof mimeType === 'string' ? { mimeType } : {}), fileUri: source.url } };
  }
  return { text: '[image]' };
}

function withoutData(block: Record<string, unknown>): Record<string, unknown> {
  if (!Object.hasOwn(block, 'provider_data')) return block;
  const { provider_data: providerData, ...rest } = block;
  const others = { ...(providerData as Record<string, unknown>) };
  delete others[GEMINI_DATA_KEY];
  return Object.keys(others).length > 0 ? { ...rest, provider_data: others } : rest;
}

function sameJson(left: unknown, right: unknown): boolean {
  return JSON.stringify(left) === JSON.stringify(right);
}
