/** What the scripted model server's tests share: one server per test, and SDK clients that do not retry. */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { ScriptStep } from './script.js';
import { type ScriptedModelServer, startScriptedModelServer } from './scripted-model-server.js';

let server: ScriptedModelServer | undefined;

/** Stops the server {@link start} started; every test file calls it in `afterEach`. */
export async function closeStarted(): Promise<void> {
  await server?.close();
  server = undefined;
}

export async function start(
  script: ScriptStep[] | Parameters<typeof startScriptedModelServer>[0]['script'],
  contextWindow?: number,
) {
  server = await startScriptedModelServer({
    script,
    ...(contextWindow === undefined ? {} : { contextWindow }),
  });
  return server;
}

export function anthropicClient(baseURL: string, options: { maxRetries?: number; timeout?: number } = {}) {
  return new Anthropic({
    apiKey: 'test-key',
    baseURL,
    maxRetries: options.maxRetries ?? 0,
    timeout: options.timeout ?? 5000,
  });
}

export function openAIClient(baseURL: string, options: { maxRetries?: number; timeout?: number } = {}) {
  return new OpenAI({
    apiKey: 'test-key',
    baseURL,
    maxRetries: options.maxRetries ?? 0,
    timeout: options.timeout ?? 5000,
  });
}

export const question: Anthropic.MessageParam[] = [{ role: 'user', content: 'What is in the repository?' }];
