/**
 * The `recall` tool in each API's shape, the model's recall calls in an answer, and the follow-up
 * request that carries their results — so the proxy can answer recall calls itself.
 */
import { recallTool } from '../../core/archive/compaction-tools.js';
import { conversationOf, withConversation } from '../request-conversation.js';
import type { ProxyApi } from '../routes.js';
import {
  geminiCalls,
  geminiDeclaredNames,
  geminiFollowUp,
  geminiToolsWithRecall,
  geminiWithoutRecall,
} from './gemini-recall.js';

/** The tool's name; a client tool of the same name keeps it (the proxy then adds nothing). */
export const RECALL_TOOL_NAME = 'recall';

/** One recall call the model made. */
export interface RecallCall {
  id: string;
  input: unknown;
}

/** The body with the `recall` tool added, when it has tools of its own and no `recall` yet. */
export function withRecallTool(api: ProxyApi, body: Record<string, unknown>): Record<string, unknown> {
  const tools = body.tools;
  if (!Array.isArray(tools) || tools.length === 0 || hasRecallTool(body)) return body;
  if (api === 'gemini') return { ...body, tools: geminiToolsWithRecall(tools) };
  return { ...body, tools: [...tools, recallToolFor(api)] };
}

/** True when the request's tools include the proxy's `recall` tool (in any API's shape). */
export function hasRecallTool(body: Record<string, unknown>): boolean {
  return (
    Array.isArray(body.tools) &&
    body.tools.some(
      (tool) => toolName(tool) === RECALL_TOOL_NAME || geminiDeclaredNames(tool).includes(RECALL_TOOL_NAME),
    )
  );
}

/** The core's provider-neutral `recall` tool in the shape of each API. */
function recallToolFor(api: ProxyApi): unknown {
  const { name, description, inputSchema: parameters } = recallTool;
  switch (api) {
    case 'anthropic':
      return { name, description, input_schema: parameters };
    case 'openai':
      return { type: 'function', function: { name, description, parameters } };
    case 'responses':
      return { type: 'function', name, description, parameters };
    case 'gemini':
      return { functionDeclarations: [{ name, description, parameters }] };
    default: {
      const unreachable: never = api;
      throw new Error(`unknown API ${String(unreachable)}`);
    }
  }
}

function toolName(tool: unknown): unknown {
  const record = tool as { name?: unknown; function?: { name?: unknown } } | null;
  return record?.name ?? record?.function?.name;
}

/** The answer's tool calls, split into recall calls and the client's own. */
export function toolCallsOf(
  api: ProxyApi,
  answer: Record<string, unknown>,
): { recall: RecallCall[]; others: number } {
  const recall: RecallCall[] = [];
  let others = 0;
  for (const call of rawCalls(api, answer)) {
    if (call.name === RECALL_TOOL_NAME) recall.push({ id: call.id, input: call.input });
    else others += 1;
  }
  return { recall, others };
}

function rawCalls(
  api: ProxyApi,
  answer: Record<string, unknown>,
): { id: string; name: unknown; input: unknown }[] {
  switch (api) {
    case 'anthropic':
      return arrayOf(answer.content)
        .filter((block) => block.type === 'tool_use')
        .map((block) => ({ id: String(block.id), name: block.name, input: block.input }));
    case 'openai':
      return arrayOf(firstMessage(answer)?.tool_calls).map((call) => {
        const fn = (call.function ?? {}) as { name?: unknown; arguments?: unknown };
        return { id: String(call.id), name: fn.name, input: parseArguments(fn.arguments) };
      });
    case 'responses':
      return arrayOf(answer.output)
        .filter((item) => item.type === 'function_call')
        .map((item) => ({
          id: String(item.call_id),
          name: item.name,
          input: parseArguments(item.arguments),
        }));
    case 'gemini':
      return geminiCalls(answer);
    default: {
      const unreachable: never = api;
      throw new Error(`unknown API ${String(unreachable)}`);
    }
  }
}

/** The answer without its recall calls (when the model called client tools in the same turn). */
export function withoutRecallCalls(api: ProxyApi, answer: Record<string, unknown>): Record<string, unknown> {
  const isRecall = (name: unknown) => name === RECALL_TOOL_NAME;
  switch (api) {
    case 'anthropic':
      return {
        ...answer,
        content: arrayOf(answer.content).filter(
          (block) => !(block.type === 'tool_use' && isRecall(block.name)),
        ),
      };
    case 'openai': {
      const choices = arrayOf(answer.choices).map((choice, index) => {
        if (index !== 0) return choice;
        const message = (choice.message ?? {}) as Record<string, unknown>;
        const calls = arrayOf(message.tool_calls).filter(
          (call) => !isRecall((call.function as { name?: unknown })?.name),
        );
        return { ...choice, message: { ...message, tool_calls: calls } };
      });
      return { ...answer, choices };
    }
    case 'responses':
      return {
        ...answer,
        output: arrayOf(answer.output).filter(
          (item) => !(item.type === 'function_call' && isRecall(item.name)),
        ),
      };
    case 'gemini':
      return geminiWithoutRecall(answer);
    default: {
      const unreachable: never = api;
      throw new Error(`unknown API ${String(unreachable)}`);
    }
  }
}

/** The request that continues after the answer, with the recall results as tool results. */
export function followUpBody(
  api: ProxyApi,
  body: Record<string, unknown>,
  answer: Record<string, unknown>,
  results: { id: string; output: string }[],
): Record<string, unknown> {
  const conversation = conversationOf(api, body) ?? [];
  switch (api) {
    case 'anthropic': {
      // Only the recall calls are answered here, so only they stay in the assistant turn.
      const content = arrayOf(answer.content).filter(
        (block) => block.type !== 'tool_use' || block.name === RECALL_TOOL_NAME,
      );
      return withConversation(api, body, [
        ...conversation,
        { role: 'assistant', content },
        {
          role: 'user',
          content: results.map((result) => ({
            type: 'tool_result',
            tool_use_id: result.id,
            content: result.output,
          })),
        },
      ]);
    }
    case 'openai': {
      const message = firstMessage(answer) ?? {};
      const calls = arrayOf(message.tool_calls).filter(
        (call) => (call.function as { name?: unknown })?.name === RECALL_TOOL_NAME,
      );
      const assistant = { role: 'assistant', content: message.content ?? null, tool_calls: calls };
      const tools = results.map((result) => ({
        role: 'tool',
        tool_call_id: result.id,
        content: result.output,
      }));
      return withConversation(api, body, [...conversation, assistant, ...tools]);
    }
    case 'responses': {
      // Output items are valid input items; client calls are left out as they get no output here.
      const output = arrayOf(answer.output).filter(
        (item) => item.type !== 'function_call' || item.name === RECALL_TOOL_NAME,
      );
      const outputs = results.map((result) => ({
        type: 'function_call_output',
        call_id: result.id,
        output: result.output,
      }));
      return withConversation(api, body, [...conversation, ...output, ...outputs]);
    }
    case 'gemini':
      return withConversation(api, body, geminiFollowUp(conversation, answer, results));
    default: {
      const unreachable: never = api;
      throw new Error(`unknown API ${String(unreachable)}`);
    }
  }
}

function firstMessage(answer: Record<string, unknown>): Record<string, unknown> | undefined {
  return arrayOf(answer.choices)[0]?.message as Record<string, unknown> | undefined;
}

function arrayOf(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter((item) => typeof item === 'object' && item !== null) : [];
}

function parseArguments(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return {};
  }
}
