/** The agent's tools in a provider-neutral form, and in Anthropic and OpenAI form. */
import { compactTool, recallTool } from 'agent-compact/recall';

/** A JSON Schema object describing a tool's input. */
export interface ToolInputSchema {
  type: 'object';
  properties: Record<string, Record<string, unknown>>;
  required?: string[];
  additionalProperties?: boolean;
  /** Other JSON Schema keywords; lets the definitions pass as the SDKs' own tool types. */
  [keyword: string]: unknown;
}

/** One tool as the agent describes it; convert with {@link toAnthropicTool} / {@link toOpenAITool}. */
export interface AgentToolDefinition {
  name: string;
  description: string;
  inputSchema: ToolInputSchema;
}

/** A tool in Anthropic Messages API form. */
export interface AnthropicToolDefinition {
  name: string;
  description: string;
  input_schema: ToolInputSchema;
}

/** A tool in OpenAI Chat Completions function form. */
export interface OpenAIToolDefinition {
  type: 'function';
  function: { name: string; description: string; parameters: ToolInputSchema };
}

/** The names of the agent's tools. */
export type AgentToolName = 'bash' | 'read_file' | 'write_file' | 'edit_file' | 'compact' | 'recall';

/** `bash {command}`. */
export const bashToolDefinition: AgentToolDefinition = {
  name: 'bash',
  description:
    'Run a shell command with bash in the working directory. Returns the combined stdout and stderr and the exit code. Long output keeps its head and tail; commands are killed after a timeout.',
  inputSchema: {
    type: 'object',
    properties: { command: { type: 'string', description: 'The command to run.' } },
    required: ['command'],
  },
};

/** `read_file {path, limit?}`. */
export const readFileToolDefinition: AgentToolDefinition = {
  name: 'read_file',
  description: 'Read a text file in the working directory. Pass limit to read only the first lines.',
  inputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'Path relative to the working directory.' },
      limit: { type: 'integer', description: 'Read at most this many lines.', minimum: 1 },
    },
    required: ['path'],
  },
};

/** `write_file {path, content}`. */
export const writeFileToolDefinition: AgentToolDefinition = {
  name: 'write_file',
  description: 'Create or replace a file in the working directory with the given content.',
  inputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'Path relative to the working directory.' },
      content: { type: 'string', description: 'The whole new content of the file.' },
    },
    required: ['path', 'content'],
  },
};

/** `edit_file {path, old_text, new_text}`. */
export const editFileToolDefinition: AgentToolDefinition = {
  name: 'edit_file',
  description:
    'Replace one exact occurrence of old_text with new_text in a file. Fails when old_text is not found or occurs more than once; include enough surrounding text to make it unique.',
  inputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'Path relative to the working directory.' },
      old_text: { type: 'string', description: 'The exact text to replace.' },
      new_text: { type: 'string', description: 'The text to put in its place.' },
    },
    required: ['path', 'old_text', 'new_text'],
  },
};

/** `compact {focus?}`: the model asks for its context to be summarized before the next step (the library's tool). */
export const compactToolDefinition: AgentToolDefinition = {
  name: compactTool.name,
  description: compactTool.description,
  inputSchema: structuredClone(compactTool.inputSchema) as unknown as ToolInputSchema,
};

/** `recall {id}`: brings back an archived result byte-identical (the library's tool). */
export const recallToolDefinition: AgentToolDefinition = {
  name: recallTool.name,
  description: recallTool.description,
  inputSchema: structuredClone(recallTool.inputSchema) as unknown as ToolInputSchema,
};

/** Every tool of the reference agent, in the order the model sees them. */
export const agentToolDefinitions: readonly AgentToolDefinition[] = [
  bashToolDefinition,
  readFileToolDefinition,
  writeFileToolDefinition,
  editFileToolDefinition,
  compactToolDefinition,
  recallToolDefinition,
];

/**
 * A tool definition in Anthropic form.
 *
 * @example
 * await client.messages.create({ model, max_tokens, messages, tools: agentToolDefinitions.map(toAnthropicTool) });
 */
export function toAnthropicTool(definition: AgentToolDefinition): AnthropicToolDefinition {
  return { name: definition.name, description: definition.description, input_schema: definition.inputSchema };
}

/**
 * A tool definition in OpenAI function form.
 *
 * @example
 * await client.chat.completions.create({ model, messages, tools: agentToolDefinitions.map(toOpenAITool) });
 */
export function toOpenAITool(definition: AgentToolDefinition): OpenAIToolDefinition {
  return {
    type: 'function',
    function: {
      name: definition.name,
      description: definition.description,
      parameters: definition.inputSchema,
    },
  };
}
