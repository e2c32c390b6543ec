/** The proxy's part of Gemini: its `generateContent` routes, `countTokens`, and text parts. */
import { isGeminiCompactedPath } from '../../gemini/gemini-proxy.js';
import type { ProxyWire } from '../proxy-wire.js';
import { geminiRecall } from './gemini-recall.js';

/** Gemini's token counting method, after any prefix. */
const countTokens = /\/models\/[^/:]+:countTokens$/;

export const geminiProxy: ProxyWire = {
  format: 'gemini',
  route: {
    compacts: isGeminiCompactedPath,
    tokenCount: {
      matches: (pathname) => countTokens.test(pathname),
      // The JSON name, and the proto's, which the API reads as well.
      wrappedFields: ['generateContentRequest', 'generate_content_request'],
    },
  },
  checks: { validation: () => ({ format: 'gemini' }) },
  writeNote: (data, note) => {
    const candidates = data.candidates as
      | { content?: { parts?: { text?: unknown; thought?: unknown }[] } }[]
      | undefined;
    const part = candidates?.[0]?.content?.parts?.find(
      (each) => typeof each.text === 'string' && !each.thought,
    );
    if (part === undefined) return false;
    part.text = `${note}${String(part.text)}`;
    return true;
  },
  recall: geminiRecall,
  cacheWriteMultiplier: 1,
};
