/**
 * Importer for SWE-agent trajectories (`.traj`, a JSON object with `history`).
 *
 * - Function-calling runs: `history` is OpenAI-shaped; `tool` messages name the calls they answer in
 *   `tool_call_ids` (an array). They convert like any OpenAI conversation.
 * - Text-action runs: the command sits in the assistant text (`action` holds it). It becomes a
 *   `tool_use` named after the command's first word (`find_file`, `edit`, `python`, …; `bash` when
 *   that word is not a valid tool name) with input `{ command }`, the assistant text is its
 *   `thought`, and the next user message (the observation) its `tool_result`. The final action,
 *   which has no observation in `history`, takes the last `trajectory` step's observation when
 *   there is one; otherwise it stays plain text.
 * - `is_demo` user messages (a demonstration pasted into the prompt) stay user text: the model saw
 *   them. `system` messages become the system prompt. SWE-agent records no per-turn usage.
 */
import { fromOpenAIMessages } from '../core/conversation/openai-format.js';
import type { OpenAIChatMessage, OpenAIToolCall } from '../core/conversation/openai-types.js';
import { parseJsonText } from '../core/conversation/parse-conversation.js';
import type { ContentBlock, Message } from '../core/model/messages.js';
import { finishImport } from './_finish.js';
import { isObject, type JsonObject, textContent, typeName, unreadable } from './_json.js';
import type { ImportedTranscript } from './imported-transcript.js';

/** Options of {@link importSweAgent}. */
export interface SweAgentImportOptions {
  /** The file name, put in front of error paths. */
  source?: string;
}

const toolNamePattern = /^[a-zA-Z0-9_-]{1,64}$/;

/** True when a parsed JSON value looks like a SWE-agent trajectory. */
export function isSweAgentTrajectory(value: unknown): boolean {
  return isObject(value) && Array.isArray(value.history) && !Array.isArray(value.messages);
}

/**
 * Reads a SWE-agent trajectory, function-calling or text-action style.
 *
 * @example
 * const { conversation } = importSweAgent(readFileSync('run.traj', 'utf8'), { source: 'run.traj' });
 */
export function importSweAgent(text: string, { source }: SweAgentImportOptions = {}): ImportedTranscript {
  return sweAgentFromValue(parseJsonText(text, source), source);
}

/** Reads a SWE-agent trajectory that is already parsed. */
export function sweAgentFromValue(value: unknown, source?: string): ImportedTranscript {
  if (!isObject(value) || !Array.isArray(value.history)) {
    throw unreadable('expected a SWE-agent trajectory with a "history" array', undefined, source);
  }
  const history = value.history.map((entry, index): JsonObject => {
    if (!isObject(entry))
      throw unreadable(`expected object, got ${typeName(entry)}`, `history[${index}]`, source);
    return entry;
  });
  const functionCalling = history.some((entry) => entry.role === 'tool' || Array.isArray(entry.tool_calls));
  const { system, messages } = functionCalling
    ? fromOpenAIMessages(functionCallingMessages(history, source))
    : textActionMessages(history, finalObservation(value.trajectory), source);
  const assistantTurns = messages.filter((message) => message.role === 'assistant').length;
  return finishImport({
    system,
    messages,
    usage: new Array(assistantTurns).fill(undefined),
    format: 'swe-agent',
    source,
  });
}

function functionCallingMessages(history: JsonObject[], source: string | undefined): OpenAIChatMessage[] {
  const result: OpenAIChatMessage[] = [];
  history.forEach((entry, index) => {
    const path = `history[${index}]`;
    const content = textContent(entry.content ?? '', `${path}.content`, source);
    switch (entry.role) {
      case 'system':
      case 'user':
        result.push({ role: entry.role, content });
        break;
      case 'assistant': {
        const toolCalls = Array.isArray(entry.tool_calls)
          ? entry.tool_calls.map((call, callIndex) =>
              toolCall(call, `${path}.tool_calls[${callIndex}]`, source),
            )
          : [];
        result.push(
          toolCalls.length > 0
            ? { role: 'assistant', content, tool_calls: toolCalls }
            : { role: 'assistant', content },
        );
        break;
      }
      case 'tool': {
        const ids = Array.isArray(entry.tool_call_ids) ? entry.tool_call_ids : [entry.tool_call_id];
        ids.forEach((id, idIndex) => {
          if (typeof id !== 'string') {
            throw unreadable(
              `expected string, got ${typeName(id)}`,
              `${path}.tool_call_ids[${idIndex}]`,
              source,
            );
          }
          result.push({ role: 'tool', tool_call_id: id, content });
        });
        break;
      }
      default:
        throw unreadable(`unknown role ${JSON.stringify(entry.role) ?? 'undefined'}`, `${path}.role`, source);
    }
  });
  return result;
}

function toolCall(value: unknown, path: string, source: string | undefined): OpenAIToolCall {
  const call = isObject(value) ? value : {};
  const fn = isObject(call.function) ? call.function : {};
  if (typeof call.id !== 'string' || typeof fn.name !== 'string') {
    throw unreadable('expected a tool call with a string id and function.name', path, source);
  }
  const argumentsText = typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {});
  return { id: call.id, type: 'function', function: { name: fn.name, arguments: argumentsText } };
}

function finalObservation(trajectory: unknown): { action: string; observation: string } | undefined {
  if (!Array.isArray(trajectory)) return undefined;
  const last: unknown = trajectory[trajectory.length - 1];
  if (!isObject(last) || typeof last.action !== 'string' || typeof last.observation !== 'string')
    return undefined;
  return { action: last.action, observation: last.observation };
}

function textActionMessages(
  history: JsonObject[],
  final: { action: string; observation: string } | undefined,
  source: string | undefined,
): { system?: string; messages: Message[] } {
  const systemParts: string[] = [];
  const messages: Message[] = [];
  let toolCalls = 0;
  for (let index = 0; index < history.length; index += 1) {
    const entry = history[index]!;
    const path = `history[${index}]`;
    const content = textContent(entry.content ?? '', `${path}.content`, source);
    switch (entry.role) {
      case 'system':
        systemParts.push(content);
        break;
      case 'user':
        messages.push({ role: 'user', content });
        break;
      case 'assistant': {
        const action = typeof entry.action === 'string' ? entry.action.trim() : '';
        const next = history[index + 1];
        let observation: string | undefined;
        if (next?.role === 'user')
          observation = textContent(next.content ?? '', `history[${index + 1}].content`, source);
        else if (!next && final && final.action.trim() === action && final.observation.trim() !== '') {
          observation = final.observation;
        }
        if (action === '' || observation === undefined) {
          messages.push({ role: 'assistant', content });
          break;
        }
        toolCalls += 1;
        const id = `call_action_${toolCalls}`;
        const firstWord = action.split(/\s+/, 1)[0] ?? '';
        const name = toolNamePattern.test(firstWord) ? firstWord : 'bash';
        const thought = typeof entry.thought === 'string' ? entry.thought.trim() : '';
        const blocks: ContentBlock[] = [];
        if (thought !== '') blocks.push({ type: 'text', text: thought });
        blocks.push({ type: 'tool_use', id, name, input: { command: action } });
        messages.push({ role: 'assistant', content: blocks });
        messages.push({
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: id, content: observation }],
        });
        if (next?.role === 'user') index += 1;
        break;
      }
      default:
        throw unreadable(`unknown role ${JSON.stringify(entry.role) ?? 'undefined'}`, `${path}.role`, source);
    }
  }
  return systemParts.length === 0 ? { messages } : { system: systemParts.join('\n\n'), messages };
}
