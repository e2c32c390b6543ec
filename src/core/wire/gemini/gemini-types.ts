/**
 * The Gemini API `generateContent` request shapes this library reads (only what it needs; every
 * other field passes through untouched).
 */

/**
 * One part of a Gemini `Content`: exactly one data field, plus optional metadata. Typed under the
 * JSON names; the reader takes each field under its proto name too (`function_response`).
 */
export interface GeminiPart {
  text?: string;
  /** The part is a thought summary (a model turn's reasoning). */
  thought?: boolean;
  /** Opaque signature of the model's reasoning; must be sent back unchanged. */
  thoughtSignature?: string;
  inlineData?: { mimeType: string; data: string; [key: string]: unknown };
  fileData?: { mimeType?: string; fileUri: string; [key: string]: unknown };
  functionCall?: { id?: string; name: string; args?: Record<string, unknown>; [key: string]: unknown };
  functionResponse?: {
    id?: string;
    name: string;
    response: Record<string, unknown>;
    /** Images (`inlineData`, `fileData`) that come with the response, on models that take them. */
    parts?: GeminiPart[];
    [key: string]: unknown;
  };
  executableCode?: { language?: string; code: string; [key: string]: unknown };
  codeExecutionResult?: { outcome?: string; output?: string; [key: string]: unknown };
  [key: string]: unknown;
}

/** One turn of a Gemini conversation. */
export interface GeminiContent {
  /** `user` or `model`; the API accepts it absent on a single-turn request. */
  role?: string;
  parts: GeminiPart[];
  [key: string]: unknown;
}

/** Usage a Gemini response reports (`usageMetadata`). */
export interface GeminiUsageMetadata {
  /** The whole prompt, cached part included. */
  promptTokenCount?: number;
  /** The part of the prompt read from `cachedContent`. */
  cachedContentTokenCount?: number;
  candidatesTokenCount?: number;
  /** Reasoning tokens of the response (output, not prompt). */
  thoughtsTokenCount?: number;
  totalTokenCount?: number;
}

/**
 * The data fields a part may carry, by their JSON names; a part holds exactly one. Parts are read
 * under the proto names too (`function_response`, see `gemini-field-names.ts`).
 */
export const GEMINI_DATA_FIELDS = [
  'text',
  'inlineData',
  'fileData',
  'functionCall',
  'functionResponse',
  'executableCode',
  'codeExecutionResult',
] as const;

/** A part's data field. */
export type GeminiDataField = (typeof GEMINI_DATA_FIELDS)[number];
