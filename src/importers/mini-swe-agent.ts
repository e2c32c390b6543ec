/**
 * Importer for mini-swe-agent trajectories (`.traj.json`, `trajectory_format: "mini-swe-agent-1"`).
 *
 * mini-swe-agent asks for exactly one fenced bash block per assistant turn and sends the command's
 * output back as the next user message. Each such turn becomes a `tool_use` named `bash` with input
 * `{ command }` (the rest of the reply stays as text), and the next user message its `tool_result`,
 * marked `is_error` when `<returncode>` is non-zero or the command timed out. A reply with no or
 * several bash blocks was rejected by the harness; it stays plain text, as does the format error
 * the harness sent back. Per-turn `extra.response.usage` is kept.
 */
import { parseJsonText } from '../core/conversation/parse-conversation.js';
import type { ContentBlock, Message } from '../core/model/messages.js';
import { finishImport } from './_finish.js';
import { isObject, textContent, typeName, unreadable } from './_json.js';
import type { ImportedTranscript, ImportedUsage } from './imported-transcript.js';

/** Options of {@link importMiniSweAgent}. */
export interface MiniSweAgentImportOptions {
  /** The file name, put in front of error paths. */
  source?: string;
}

// mini-swe-agent's own action pattern: ```bash\n<command>\n```
const bashBlockPattern = /```bash\s*\n([\s\S]*?)\n```/g;
const returnCodePattern = /<returncode>\s*(-?\d+)\s*<\/returncode>/;
const timeoutPattern = /^The last command [\s\S]*timed out/;

/** True when a parsed JSON value looks like a mini-swe-agent trajectory. */
export function isMiniSweAgentTrajectory(value: unknown): boolean {
  if (!isObject(value) || !Array.isArray(value.messages)) return false;
  const format = value.trajectory_format;
  if (typeof format === 'string') return format.startsWith('mini-swe-agent');
  return isObject(value.info) && typeof value.info.mini_version === 'string';
}

/**
 * Reads a mini-swe-agent trajectory.
 *
 * @example
 * const { conversation, usage } = importMiniSweAgent(readFileSync('run.traj.json', 'utf8'));
 */
export function importMiniSweAgent(
  text: string,
  { source }: MiniSweAgentImportOptions = {},
): ImportedTranscript {
  return miniSweAgentFromValue(parseJsonText(text, source), source);
}

/** Reads a mini-swe-agent trajectory that is already parsed. */
export function miniSweAgentFromValue(value: unknown, source?: string): ImportedTranscript {
  if (!isObject(value) || !Array.isArray(value.messages)) {
    throw unreadable('expected a mini-swe-agent trajectory with a "messages" array', undefined, source);
  }
  const entries = value.messages;
  const systemParts: string[] = [];
  const messages: Message[] = [];
  const usage: (ImportedUsage | undefined)[] = [];
  const timestamps: (number | undefined)[] = [];
  let toolCalls = 0;
  for (let index = 0; index < entries.length; index += 1) {
    const path = `messages[${index}]`;
    const entry = entries[index];
    if (!isObject(entry)) throw unreadable(`expected object, got ${typeName(entry)}`, path, source);
    const content = textContent(entry.content, `${path}.content`, source);
    switch (entry.role) {
      case 'system':
        systemParts.push(content);
        break;
      case 'user':
        messages.push({ role: 'user', content });
        break;
      case 'assistant': {
        usage.push(usageOf(entry));
        timestamps.push(createdOf(entry));
        const call = bashCall(content, entries[index + 1], `call_bash_${toolCalls + 1}`, (output) =>
          textContent(output, `messages[${index + 1}].content`, source),
        );
        if (call === undefined) {
          messages.push({ role: 'assistant', content });
          break;
        }
        toolCalls += 1;
        messages.push(...call);
        index += 1;
        break;
      }
      default:
        throw unreadable(
          `expected "system", "user" or "assistant", got ${JSON.stringify(entry.role) ?? 'undefined'}`,
          `${path}.role`,
          source,
        );
    }
  }
  const result = finishImport({
    system: systemParts.length === 0 ? undefined : systemParts.join('\n\n'),
    messages,
    usage,
    format: 'mini-swe-agent',
    source,
  });
  if (timestamps.some((value) => value !== undefined) && result.usage.length === timestamps.length) {
    result.timestamps = timestamps;
  }
  return result;
}

/**
 * An assistant turn with exactly one fenced bash block, answered by the next (user) entry, as a
 * `bash` tool call and its result (the rest of the text is the thought); undefined otherwise.
 */
function bashCall(
  content: string,
  next: unknown,
  id: string,
  outputOf: (content: unknown) => string,
): Message[] | undefined {
  const commands = [...content.matchAll(bashBlockPattern)];
  const command = commands.length === 1 ? commands[0]! : undefined;
  if (!command || !isObject(next) || next.role !== 'user') return undefined;
  const thought = (content.slice(0, command.index) + content.slice(command.index + command[0].length)).trim();
  const blocks: ContentBlock[] = [];
  if (thought !== '') blocks.push({ type: 'text', text: thought });
  blocks.push({ type: 'tool_use', id, name: 'bash', input: { command: command[1]! } });
  const output = outputOf(next.content);
  const result: ContentBlock = { type: 'tool_result', tool_use_id: id, content: output };
  if (isErrorOutput(output)) result.is_error = true;
  return [
    { role: 'assistant', content: blocks },
    { role: 'user', content: [result] },
  ];
}

/** When the provider created the response (`extra.response.created`, seconds), in milliseconds. */
function createdOf(entry: Record<string, unknown>): number | undefined {
  const extra = entry.extra;
  const response = isObject(extra) ? extra.response : undefined;
  const created = isObject(response) ? response.created : undefined;
  return typeof created === 'number' && Number.isFinite(created) ? created * 1000 : undefined;
}

function isErrorOutput(output: string): boolean {
  const returnCode = returnCodePattern.exec(output);
  if (returnCode) return Number(returnCode[1]) !== 0;
  return timeoutPattern.test(output);
}

function usageOf(entry: Record<string, unknown>): ImportedUsage | undefined {
  const extra = entry.extra;
  const response = isObject(extra) ? extra.response : undefined;
  const raw = isObject(response) ? response.usage : undefined;
  if (!isObject(raw)) return undefined;
  const usage: ImportedUsage = {};
  if (typeof raw.prompt_tokens === 'number') usage.prompt_tokens = raw.prompt_tokens;
  if (typeof raw.completion_tokens === 'number') usage.completion_tokens = raw.completion_tokens;
  const details = raw.prompt_tokens_details;
  if (isObject(details) && typeof details.cached_tokens === 'number') {
    usage.prompt_tokens_details = { cached_tokens: details.cached_tokens };
  }
  return Object.keys(usage).length === 0 ? undefined : usage;
}
