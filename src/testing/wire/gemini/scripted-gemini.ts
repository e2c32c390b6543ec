/** The Gemini API on the scripted server: `POST /v1beta/models/{model}:{method}`, answered whole by its own flow. */
import type { ScriptedWire } from '../scripted-wire.js';
import { GEMINI_PATH_PREFIX, geminiErrorBody, handleGemini } from './gemini-server.js';

export const scriptedGemini: ScriptedWire = {
  format: 'gemini',
  servesPath: (path) => path.startsWith(GEMINI_PATH_PREFIX),
  handle: handleGemini,
  errorBody: geminiErrorBody,
};
