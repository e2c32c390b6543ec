/**
 * Conversion between the AI SDK's prompt (`LanguageModelV3Prompt` of ai 6, `LanguageModelV4Prompt`
 * of ai 7) and the canonical (Anthropic-shaped) model, built so a round trip loses nothing the
 * compactor did not change:
 *
 * - Leading `system` messages become the system prompt and are sent back as they were.
 * - Every other prompt message becomes exactly one canonical message (a `tool` message becomes a
 *   user message of `tool_result` blocks; a later `system` message becomes a user text message).
 * - Each canonical message and block remembers the prompt message or part it came from; whatever
 *   the compactor leaves untouched goes back as the original object, `providerOptions` included.
 * - Parts with no canonical form (provider-executed tool results, approval responses, non-image
 *   files, and v4's `custom` and `reasoning-file` parts) travel as blocks of type `ai-sdk-part`
 *   that carry the original part.
 *
 * The code is typed with the v3 types, which every installed `@ai-sdk/provider` has; the two ways
 * v4 differs that matter here (file data as a tagged object, `file` items in tool-result content)
 * are read by shape and written for the version the calling AI SDK speaks.
 */
import type {
  LanguageModelV3DataContent,
  LanguageModelV3FilePart,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  LanguageModelV3ToolResultOutput,
  LanguageModelV3ToolResultPart,
} from '@ai-sdk/provider';
import type {
  ContentBlock,
  ImageBlock,
  Message,
  SystemPrompt,
  TextBlock,
  ToolResultBlock,
  ToolResultContentBlock,
} from '../core/model/messages.js';

/** The prompt specification of the calling AI SDK: `v3` for ai 6, `v4` for ai 7. */
export type PromptVersion = 'v3' | 'v4';

/** File data as v4 writes it (`SharedV4FileData`): a tagged object instead of bytes or a URL. */
type FileDataV4 =
  | { type: 'data'; data: Uint8Array | string }
  | { type: 'url'; url: URL }
  | { type: 'reference'; reference: unknown }
  | { type: 'text'; text: string };

/** File data of either version. */
type AnyFileData = LanguageModelV3DataContent | FileDataV4;

/** A prompt part kept whole inside a canonical block, for parts the canonical model cannot express. */
// A type alias, not an interface: it must fit the index signature of an unknown block.
export type CarriedPartBlock = {
  type: 'ai-sdk-part';
  /** Readable text, so the part still counts and summarizes. */
  text: string;
  part: unknown;
};

type AssistantPart = Extract<LanguageModelV3Message, { role: 'assistant' }>['content'][number];
type UserPart = Extract<LanguageModelV3Message, { role: 'user' }>['content'][number];
type ToolPart = Extract<LanguageModelV3Message, { role: 'tool' }>['content'][number];
type AnyPart = AssistantPart | UserPart | ToolPart;
type ToolResultContentItem =
  | Extract<LanguageModelV3ToolResultOutput, { type: 'content' }>['value'][number]
  | { type: 'file'; data: FileDataV4; mediaType: string; filename?: string };
type ImageSource = ImageBlock['source'];

/** Remembers where canonical messages and blocks came from, across calls. */
export class PromptOrigins {
  readonly #messages = new WeakMap<Message, LanguageModelV3Message>();
  readonly #blocks = new WeakMap<object, AnyPart>();
  /** Tool names by call id, for tool results whose call the compactor rewrote. */
  readonly toolNames = new Map<string, string>();

  /** @param version the prompt specification new parts are written in */
  constructor(readonly version: PromptVersion = 'v3') {}

  rememberMessage(message: Message, origin: LanguageModelV3Message): void {
    this.#messages.set(message, origin);
  }

  rememberBlock(block: object, part: AnyPart): void {
    this.#blocks.set(block, part);
  }

  messageOrigin(message: Message): LanguageModelV3Message | undefined {
    return this.#messages.get(message);
  }

  blockOrigin(block: object): AnyPart | undefined {
    return this.#blocks.get(block);
  }
}

/** A prompt split into its leading system messages and the canonical conversation. */
export interface CanonicalPrompt {
  /** The leading `system` messages, sent back unchanged. */
  systemMessages: LanguageModelV3Message[];
  /** The system prompt the compactor counts. */
  system?: SystemPrompt;
  /** One canonical message per remaining prompt message. */
  messages: Message[];
}

/** Splits off the leading system messages. */
export function leadingSystemCount(prompt: LanguageModelV3Prompt): number {
  let count = 0;
  while (prompt[count]?.role === 'system') count += 1;
  return count;
}

/** The system prompt of the leading system messages. */
export function systemFromMessages(
  systemMessages: readonly LanguageModelV3Message[],
): SystemPrompt | undefined {
  const texts = systemMessages.map((message) => (typeof message.content === 'string' ? message.content : ''));
  if (texts.length === 0) return undefined;
  if (texts.length === 1) return texts[0];
  return texts.map((text): TextBlock => ({ type: 'text', text }));
}

/** Converts prompt messages (no leading system messages) to canonical messages, one for one. */
export function toCanonicalMessages(
  prompt: readonly LanguageModelV3Message[],
  origins: PromptOrigins,
): Message[] {
  return prompt.map((promptMessage) => {
    const message = toCanonicalMessage(promptMessage, origins);
    origins.rememberMessage(message, promptMessage);
    return message;
  });
}

function toCanonicalMessage(promptMessage: LanguageModelV3Message, origins: PromptOrigins): Message {
  switch (promptMessage.role) {
    case 'system':
      return {
        role: 'user',
        content: [{ type: 'text', text: `<system>\n${promptMessage.content}\n</system>` }],
      };
    case 'user':
      return { role: 'user', content: promptMessage.content.map((part) => blockFromPart(part, origins)) };
    case 'assistant':
      return {
        role: 'assistant',
        content: promptMessage.content.map((part) => blockFromPart(part, origins)),
      };
    case 'tool':
      return { role: 'user', content: promptMessage.content.map((part) => blockFromPart(part, origins)) };
    default: {
      const unreachable: never = promptMessage;
      throw new Error(`unknown prompt message role ${JSON.stringify(unreachable)}`);
    }
  }
}

function blockFromPart(part: AnyPart, origins: PromptOrigins): ContentBlock {
  const block = convertPart(part, origins);
  origins.rememberBlock(block, part);
  return block;
}

function convertPart(part: AnyPart, origins: PromptOrigins): ContentBlock {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'reasoning': {
      const signature = (part.providerOptions?.anthropic as { signature?: unknown } | undefined)?.signature;
      return {
        type: 'thinking',
        thinking: part.text,
        signature: typeof signature === 'string' ? signature : '',
      };
    }
    case 'file':
      return blockFromFile(part);
    case 'tool-call':
      origins.toolNames.set(part.toolCallId, part.toolName);
      if (part.providerExecuted)
        return carried(part, `[provider tool call ${part.toolName}] ${safeJson(part.input)}`);
      return { type: 'tool_use', id: part.toolCallId, name: part.toolName, input: part.input ?? {} };
    case 'tool-result':
      origins.toolNames.set(part.toolCallId, part.toolName);
      return toolResultFromPart(part);
    case 'tool-approval-response':
      return carried(
        part,
        `[tool approval ${part.approved ? 'granted' : 'denied'}${part.reason ? `: ${part.reason}` : ''}]`,
      );
    default: {
      // v4's `custom` and `reasoning-file` parts arrive here too: the v3 types do not name them.
      const unreachable: never = part;
      return carried(unreachable, safeJson(unreachable));
    }
  }
}

function carried(part: unknown, text: string): CarriedPartBlock {
  return { type: 'ai-sdk-part', text, part };
}

function blockFromFile(part: LanguageModelV3FilePart): ContentBlock {
  const source = part.mediaType.startsWith('image') ? imageSourceOf(part.data, part.mediaType) : undefined;
  if (!source) return carried(part, `[file ${part.filename ?? part.mediaType}]`);
  return { type: 'image', source };
}

/** The image source of file data of either version; `undefined` for data that is no image (v4 text, references). */
function imageSourceOf(data: AnyFileData, mediaType: string): ImageSource | undefined {
  if (data instanceof URL) return { type: 'url', url: data.href };
  if (typeof data === 'string' || data instanceof Uint8Array) {
    return { type: 'base64', media_type: mediaType, data: base64Of(data) };
  }
  switch (data.type) {
    case 'url':
      return { type: 'url', url: data.url.href };
    case 'data':
      return { type: 'base64', media_type: mediaType, data: base64Of(data.data) };
    case 'reference':
    case 'text':
      return undefined;
    default: {
      const unreachable: never = data;
      return unreachable;
    }
  }
}

function toolResultFromPart(part: LanguageModelV3ToolResultPart): ToolResultBlock {
  const { content, isError } = toolResultContent(part.output);
  return {
    type: 'tool_result',
    tool_use_id: part.toolCallId,
    content,
    ...(isError ? { is_error: true } : {}),
  };
}

function toolResultContent(output: LanguageModelV3ToolResultOutput): {
  content: string | ToolResultContentBlock[];
  isError: boolean;
} {
  switch (output.type) {
    case 'text':
      return { content: output.value, isError: false };
    case 'json':
      return { content: safeJson(output.value), isError: false };
    case 'error-text':
      return { content: output.value, isError: true };
    case 'error-json':
      return { content: safeJson(output.value), isError: true };
    case 'execution-denied':
      return { content: `Tool execution denied${output.reason ? `: ${output.reason}` : ''}`, isError: true };
    case 'content':
      return {
        content: output.value.map((value): ToolResultContentBlock => {
          const item = value as ToolResultContentItem;
          switch (item.type) {
            case 'text':
              return { type: 'text', text: item.text };
            case 'image-data':
              return {
                type: 'image',
                source: { type: 'base64', media_type: item.mediaType, data: item.data },
              };
            case 'image-url':
              return { type: 'image', source: { type: 'url', url: item.url } };
            case 'file': {
              const source = item.mediaType.startsWith('image')
                ? imageSourceOf(item.data, item.mediaType)
                : undefined;
              return source
                ? { type: 'image', source }
                : { type: 'text', text: `[file ${item.filename ?? item.mediaType}]` };
            }
            default:
              return { type: 'text', text: safeJson(item) };
          }
        }),
        isError: false,
      };
    default: {
      const unreachable: never = output;
      return { content: safeJson(unreachable), isError: false };
    }
  }
}

/** Converts the compactor's output back to prompt messages, reusing every untouched original. */
export function fromCanonicalMessages(
  messages: readonly Message[],
  origins: PromptOrigins,
): LanguageModelV3Prompt {
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    for (const block of message.content) {
      if (block.type === 'tool_use') {
        const { id, name } = block as { id: string; name: string };
        origins.toolNames.set(id, name);
      }
    }
  }
  const prompt: LanguageModelV3Prompt = [];
  for (const message of messages) {
    const origin = origins.messageOrigin(message);
    if (origin) prompt.push(origin);
    else prompt.push(...promptMessagesFrom(message, origins));
  }
  return prompt;
}

function promptMessagesFrom(message: Message, origins: PromptOrigins): LanguageModelV3Message[] {
  const blocks: readonly ContentBlock[] =
    typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
  if (message.role === 'assistant') {
    return [{ role: 'assistant', content: blocks.flatMap((block) => assistantPartsFrom(block, origins)) }];
  }
  // A user message holds tool results and user content; the prompt wants them in separate messages.
  const result: LanguageModelV3Message[] = [];
  for (const block of blocks) {
    const original = origins.blockOrigin(block);
    const toolPart =
      original?.type === 'tool-result' || original?.type === 'tool-approval-response'
        ? original
        : block.type === 'tool_result'
          ? toolResultPartFrom(block as ToolResultBlock, origins)
          : isCarried(block) && isToolPart(block.part)
            ? block.part
            : undefined;
    const last = result.at(-1);
    if (toolPart) {
      if (last?.role === 'tool') last.content.push(toolPart as ToolPart);
      else result.push({ role: 'tool', content: [toolPart as ToolPart] });
      continue;
    }
    const userParts = userPartsFrom(block, origins);
    if (last?.role === 'user') last.content.push(...userParts);
    else result.push({ role: 'user', content: userParts });
  }
  return result.filter((promptMessage) => promptMessage.content.length > 0);
}

function isCarried(block: ContentBlock): block is CarriedPartBlock {
  return block.type === 'ai-sdk-part' && 'part' in block;
}

function isToolPart(part: unknown): boolean {
  const type = (part as { type?: unknown }).type;
  return type === 'tool-result' || type === 'tool-approval-response';
}

function userPartsFrom(block: ContentBlock, origins: PromptOrigins): UserPart[] {
  const original = origins.blockOrigin(block);
  if (original && (original.type === 'text' || original.type === 'file')) return [original];
  if (isCarried(block)) {
    const type = (block.part as { type?: unknown }).type;
    return type === 'text' || type === 'file'
      ? [block.part as UserPart]
      : [{ type: 'text', text: block.text }];
  }
  switch (block.type) {
    case 'text':
      return [{ type: 'text', text: (block as TextBlock).text }];
    case 'image':
      return [imagePartFrom(block as ImageBlock, origins.version)];
    default:
      return [{ type: 'text', text: readableBlock(block) }];
  }
}

function assistantPartsFrom(block: ContentBlock, origins: PromptOrigins): AssistantPart[] {
  const original = origins.blockOrigin(block);
  if (original && original.type !== 'tool-approval-response') return [original];
  if (isCarried(block)) return [block.part as AssistantPart];
  switch (block.type) {
    case 'text':
      return [{ type: 'text', text: (block as TextBlock).text }];
    case 'thinking': {
      const { thinking, signature } = block as { thinking: string; signature: string };
      return [
        {
          type: 'reasoning',
          text: thinking,
          ...(signature ? { providerOptions: { anthropic: { signature } } } : {}),
        },
      ];
    }
    case 'redacted_thinking':
      return [];
    case 'tool_use': {
      const { id, name, input } = block as { id: string; name: string; input: unknown };
      return [{ type: 'tool-call', toolCallId: id, toolName: name, input }];
    }
    case 'image':
      return [imagePartFrom(block as ImageBlock, origins.version)];
    default:
      return [{ type: 'text', text: readableBlock(block) }];
  }
}

function toolResultPartFrom(block: ToolResultBlock, origins: PromptOrigins): LanguageModelV3ToolResultPart {
  const toolName = origins.toolNames.get(block.tool_use_id) ?? 'tool';
  const content = block.content ?? '';
  let output: LanguageModelV3ToolResultOutput;
  if (typeof content === 'string') {
    output = { type: block.is_error ? 'error-text' : 'text', value: content };
  } else if (content.every((item) => item.type === 'text')) {
    const value = content.map((item) => (item as TextBlock).text).join('\n');
    output = { type: block.is_error ? 'error-text' : 'text', value };
  } else {
    const value = content.map((item) => toolResultItemFrom(item, origins.version));
    // v4 items are typed by v4's types, which the installed `@ai-sdk/provider` may not have.
    output = {
      type: 'content',
      value: value as Extract<LanguageModelV3ToolResultOutput, { type: 'content' }>['value'],
    };
  }
  return { type: 'tool-result', toolCallId: block.tool_use_id, toolName, output };
}

function toolResultItemFrom(item: ToolResultContentBlock, version: PromptVersion): ToolResultContentItem {
  const image = item.type === 'image' ? imageFrom(item as ImageBlock) : undefined;
  if (image === undefined) {
    return { type: 'text', text: item.type === 'text' ? (item as TextBlock).text : readableBlock(item) };
  }
  if (version === 'v4') {
    return { type: 'file', mediaType: image.mediaType, data: fileDataV4(image) };
  }
  return 'url' in image
    ? { type: 'image-url', url: image.url.href }
    : { type: 'image-data', data: image.data, mediaType: image.mediaType };
}

function imagePartFrom(block: ImageBlock, version: PromptVersion): LanguageModelV3FilePart {
  const image = imageFrom(block) ?? { data: '', mediaType: 'image/png' };
  if (version === 'v4') {
    const part = { type: 'file', mediaType: image.mediaType, data: fileDataV4(image) };
    // A v4 file part, typed as the v3 one the rest of this file works with.
    return part as unknown as LanguageModelV3FilePart;
  }
  return { type: 'file', mediaType: image.mediaType, data: 'url' in image ? image.url : image.data };
}

/** An image block's URL or base64 data; `undefined` when it has neither. */
function imageFrom(
  block: ImageBlock,
): { url: URL; mediaType: string } | { data: string; mediaType: string } | undefined {
  const source = block.source as { type: string; url?: string; data?: string; media_type?: string };
  if (source.type === 'url' && source.url) return { url: new URL(source.url), mediaType: 'image/*' };
  if (source.type === 'base64' && source.data) {
    return { data: source.data, mediaType: source.media_type ?? 'image/png' };
  }
  return undefined;
}

function fileDataV4(image: { url: URL } | { data: string }): FileDataV4 {
  return 'url' in image ? { type: 'url', url: image.url } : { type: 'data', data: image.data };
}

function readableBlock(block: ContentBlock): string {
  const text = (block as { text?: unknown }).text;
  return typeof text === 'string' ? text : safeJson(block);
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Base64 of file data without `node:` modules, so the middleware also runs on edge runtimes. */
function base64Of(data: Exclude<LanguageModelV3DataContent, URL>): string {
  if (typeof data === 'string') return data;
  let binary = '';
  const chunkSize = 0x8000;
  for (let offset = 0; offset < data.length; offset += chunkSize) {
    binary += String.fromCharCode(...data.subarray(offset, offset + chunkSize));
  }
  return btoa(binary);
}
