/**
 * The OpenAI Responses API input shape, declared here so the core needs no SDK. Structurally
 * compatible with the `openai` package's `ResponseInputItem` (`openai/resources/responses/responses`);
 * only the fields this library reads are named, every other field is kept as it is.
 */

/** A content part of a Responses `message` item (`input_text`, `output_text`, `input_image`, …). */
export interface ResponsesContentPart {
  type: string;
  [key: string]: unknown;
}

/** A `message` item: `type` is optional (the SDK's `EasyInputMessage`). */
export interface ResponsesMessageItem {
  type?: 'message';
  role: 'user' | 'assistant' | 'system' | 'developer';
  content: string | ResponsesContentPart[];
  [key: string]: unknown;
}

/** A `function_call` item: the model calls a function tool. */
export interface ResponsesFunctionCallItem {
  type: 'function_call';
  call_id: string;
  name: string;
  arguments: string;
  [key: string]: unknown;
}

/** A `custom_tool_call` item: the model calls a free-form (custom) tool with a string input. */
export interface ResponsesCustomToolCallItem {
  type: 'custom_tool_call';
  call_id: string;
  name: string;
  input: string;
  [key: string]: unknown;
}

/** A `function_call_output` or `custom_tool_call_output` item: the answer to a call. */
export interface ResponsesCallOutputItem {
  type: 'function_call_output' | 'custom_tool_call_output';
  call_id: string;
  output: string | ResponsesContentPart[];
  [key: string]: unknown;
}

/** A `reasoning` item; `encrypted_content` is opaque and must go back unchanged. */
export interface ResponsesReasoningItem {
  type: 'reasoning';
  summary: Array<{ type: string; text: string }>;
  encrypted_content?: string | null;
  [key: string]: unknown;
}

/** A `compaction` item from server-side compaction: everything before it is already compacted. */
export interface ResponsesCompactionItem {
  type: 'compaction';
  encrypted_content: string;
  [key: string]: unknown;
}

/** An `item_reference`: a stored item by id (`type` is optional in the API). */
export interface ResponsesItemReference {
  type?: 'item_reference' | null;
  id: string;
  [key: string]: unknown;
}

/** Any other item type (`web_search_call`, `local_shell_call`, `mcp_call`, …), kept as it is. */
export interface ResponsesOtherItem {
  type: string;
  [key: string]: unknown;
}

/** One item of a Responses `input` array. */
export type ResponsesInputItem =
  | ResponsesMessageItem
  | ResponsesFunctionCallItem
  | ResponsesCustomToolCallItem
  | ResponsesCallOutputItem
  | ResponsesReasoningItem
  | ResponsesCompactionItem
  | ResponsesItemReference
  | ResponsesOtherItem;

/** The `input` of a Responses request: a user prompt string or a list of items. */
export type ResponsesInput = string | ResponsesInputItem[];
