/**
 * How the scripted server writes answers on the OpenAI Chat Completions wire: the `ChatCompletion`
 * object and its streamed chunks, ending with `data: [DONE]`.
 */
import { type Answer, streamPieces } from '../../_wire.js';

const openAIFinishReasons = { end_turn: 'stop', tool_use: 'tool_calls', max_tokens: 'length' } as const;

function openAIUsage(answer: Answer): Record<string, unknown> {
  return {
    prompt_tokens: answer.usage.inputTokens,
    completion_tokens: answer.usage.outputTokens,
    total_tokens: answer.usage.inputTokens + answer.usage.outputTokens,
    prompt_tokens_details: { cached_tokens: answer.usage.cacheReadTokens, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
  };
}

function openAIText(answer: Answer): string {
  return answer.blocks
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('');
}

function openAIToolCalls(answer: Answer): Record<string, unknown>[] {
  return answer.blocks.flatMap((block) =>
    block.type === 'tool_use'
      ? [
          {
            id: block.id,
            type: 'function',
            function: { name: block.name, arguments: JSON.stringify(block.input) },
          },
        ]
      : [],
  );
}

/** The OpenAI `ChatCompletion` object of an answer. */
export function openAICompletion(answer: Answer, created: number): Record<string, unknown> {
  const toolCalls = openAIToolCalls(answer);
  const text = openAIText(answer);
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: text === '' && toolCalls.length > 0 ? null : text,
    refusal: null,
    annotations: [],
  };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return {
    id: answer.id,
    object: 'chat.completion',
    created,
    model: answer.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: openAIFinishReasons[answer.stop] }],
    usage: openAIUsage(answer),
    system_fingerprint: 'fp_scripted',
  };
}

/** The OpenAI streamed chunks of an answer, ending with `data: [DONE]`. */
export function openAIChunks(answer: Answer, created: number): string[] {
  const chunks: string[] = [];
  const chunk = (choices: unknown[], usage: unknown = null): void => {
    const data = { id: answer.id, object: 'chat.completion.chunk', created, model: answer.model, choices };
    chunks.push(`data: ${JSON.stringify(answer.includeStreamUsage ? { ...data, usage } : data)}\n\n`);
  };
  const delta = (value: Record<string, unknown>, finishReason: string | null = null): unknown[] => [
    { index: 0, delta: value, logprobs: null, finish_reason: finishReason },
  ];
  chunk(delta({ role: 'assistant', content: '', refusal: null }));
  const text = openAIText(answer);
  if (text !== '') for (const content of streamPieces(text)) chunk(delta({ content }));
  openAIToolCalls(answer).forEach((call, index) => {
    const { id, function: fn } = call as { id: string; function: { name: string; arguments: string } };
    chunk(
      delta({ tool_calls: [{ index, id, type: 'function', function: { name: fn.name, arguments: '' } }] }),
    );
    chunk(delta({ tool_calls: [{ index, function: { arguments: fn.arguments } }] }));
  });
  chunk(delta({}, openAIFinishReasons[answer.stop]));
  if (answer.includeStreamUsage) chunk([], openAIUsage(answer));
  chunks.push('data: [DONE]\n\n');
  return chunks;
}
