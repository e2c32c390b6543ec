/**
 * What the proxy does differently for the Gemini API: its routes
 * (`/v1beta/models/{model}:generateContent` and `:streamGenerateContent`). Its usage
 * (`usageMetadata`) and summary call are its dialect's (`core/wire/gemini/`).
 */

/** `…/models/{model}:generateContent` or `:streamGenerateContent` (a tuned model's too), after any prefix. */
const compactedPath = /\/(models|tunedModels)\/[^/:]+:(generateContent|streamGenerateContent)$/;
/**
 * Any Gemini path: a model's method (`countTokens`, `embedContent`…), or anything under the
 * versions only Gemini has (`/v1beta/models`, `/v1beta/cachedContents`, `/upload/v1beta/files`).
 */
const geminiPath = /\/(models|tunedModels)\/[^/:]+:[A-Za-z]+$|\/v1(beta|alpha)(\/|$)/;

/** True for the two Gemini paths whose conversation the proxy compacts. */
export function isGeminiCompactedPath(pathname: string): boolean {
  return compactedPath.test(pathname);
}

/** True for any Gemini model method path. */
export function isGeminiPath(pathname: string): boolean {
  return geminiPath.test(pathname);
}
