/** Shared pieces of the dialects' summary calls. */
import type { Message, SystemPrompt } from '../../model/messages.js';

/** A request body without its streaming switches: a summary is read in one answer. */
export function withoutStreaming(body: Record<string, unknown>): Record<string, unknown> {
  const { stream: _stream, stream_options: _streamOptions, ...rest } = body;
  return rest;
}

/**
 * A request body without what forces the shape of the answer, kept where it forces nothing (the
 * prompt cache reads on): a summary is text, and a request that makes the model call a tool (Anthropic
 * `tool_choice` `any` or `tool`; OpenAI `required` or a named function) gets a tool call and no
 * summary, one that asks for JSON (`response_format`, Responses `text.format`) gets the client's
 * JSON taken for the summary. Each dialect names its fields.
 */
export function withoutForcedOutput(
  body: Record<string, unknown>,
  {
    forcesTool,
    formatField,
  }: { forcesTool(choice: unknown): boolean; formatField?: 'response_format' | 'text' },
): Record<string, unknown> {
  const { tool_choice: choice, ...rest } = body;
  const output: Record<string, unknown> =
    choice === undefined || forcesTool(choice) ? rest : { ...rest, tool_choice: choice };
  if (formatField === 'response_format') {
    const format = (output.response_format as { type?: unknown } | undefined)?.type;
    if (format !== undefined && format !== 'text') delete output.response_format;
  }
  if (formatField === 'text' && isObject(output.text) && isObject(output.text.format)) {
    if (output.text.format.type !== 'text') {
      const { format: _format, ...text } = output.text;
      output.text = text;
    }
  }
  return output;
}

/** Whether an OpenAI `tool_choice` makes the model call a tool: `required` or a named tool. */
export function openAIForcesTool(choice: unknown): boolean {
  return choice === 'required' || isObject(choice);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function withSystem(messages: Message[], system: SystemPrompt | undefined) {
  return system === undefined ? { messages } : { messages, system };
}

/** The text blocks of an Anthropic-style content array, joined. */
export function textOfBlocks(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content
    .filter(
      (block): block is { type: 'text'; text: string } =>
        block?.type === 'text' && typeof block.text === 'string',
    )
    .map((block) => block.text)
    .join('\n');
}
