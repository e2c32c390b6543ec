/**
 * What the proxy does differently for the Gemini API: its routes
 * (`/v1beta/models/{model}:generateContent` and `:streamGenerateContent`). Its usage
 * (`usageMetadata`) and summary call are its dialect's (`core/wire/gemini/`).
 */

/** `…/models/{model}:generateContent` or `:streamGenerateContent`, after any prefix. */
const compactedPath = /\/models\/[^/:]+:(generateContent|streamGenerateContent)$/;
/** Any Gemini model method (`countTokens`, `embedContent`…), after any prefix. */
const geminiPath = /\/models\/[^/:]+:[A-Za-z]+$/;

/** True for the two Gemini paths whose conversation the proxy compacts. */
export function isGeminiCompactedPath(pathname: string): boolean {
  return compactedPath.test(pathname);
}

/** True for any Gemini model method path. */
export function isGeminiPath(pathname: string): boolean {
  return geminiPath.test(pathname);
}
