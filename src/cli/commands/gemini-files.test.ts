import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  geminiBody,
  geminiSession,
  nonBlockingResponses,
} from '../../core/wire/gemini/gemini-session.test-utils.js';
import { useTempDirs } from '../../temp-dirs.test-utils.js';
import { recordingIO } from '../cli-io.test-utils.js';
import { main } from '../main.js';

const tempDir = useTempDirs();

let directory: string;

async function run(args: string[]) {
  const { output, io } = recordingIO(directory);
  const code = await main(args, io);
  return { code, ...output };
}

function write(name: string, value: unknown) {
  writeFileSync(join(directory, name), JSON.stringify(value));
}

beforeAll(() => {
  directory = tempDir('agent-compact-gemini-');
  write('request.json', geminiBody(8));
  const stripped = geminiBody(3);
  delete stripped.contents[5]!.parts[1]!.thoughtSignature;
  write('stripped.json', stripped);
  write('orphan.json', { contents: [...geminiSession(1).slice(0, 1), ...geminiSession(1).slice(2)] });
  write('unknown-part.json', { contents: [{ role: 'user', parts: [{ text: 'a' }, { audio: 'x' }] }] });
  write('not-array.json', { contents: { role: 'user' } });
  for (const [name, contents] of Object.entries(unrepaired)) write(`${name}.json`, { contents });
});

const user = (...parts: unknown[]) => ({ role: 'user', parts });
const model = (...parts: unknown[]) => ({ role: 'model', parts });
const call = (name: string) => ({ functionCall: { name, args: {} } });
const response = (name: string) => ({ functionResponse: { name, response: { output: 'ok' } } });

/** Gemini contents the API refuses, each of a shape `validate --fix` must leave valid. */
const unrepaired = {
  'unanswered-call': [
    user({ text: 'read a.txt' }),
    model({ text: 'ok' }, call('read_file')),
    user({ text: 'stop' }),
  ],
  'parallel-one-answered': [
    user({ text: 'go' }),
    model(call('ls'), call('cat')),
    user(response('ls')),
    model({ text: 'done' }),
  ],
  'response-without-call': [
    user({ text: 'go' }),
    model({ text: 'ok' }),
    user(response('ls')),
    model({ text: 'done' }),
  ],
  'call-then-model': [user({ text: 'go' }), model(call('ls')), model({ text: 'done' })],
  'content-without-parts': [user({ text: 'go' }), model(), user({ text: 'go on' })],
  'response-of-another-name': [
    user({ text: 'go' }),
    model(call('ls')),
    user(response('cat')),
    model({ text: 'done' }),
  ],
};

describe('the CLI on Gemini files', () => {
  it('validates a Gemini request (detected and with --format gemini)', async () => {
    expect(await run(['validate', 'request.json'])).toMatchObject({ code: 0, stdout: 'valid\n' });
    expect(await run(['validate', '--format', 'gemini', 'request.json'])).toMatchObject({ code: 0 });
  });

  it.each([
    ['stripped.json', 'contents[5].parts[1]: functionCall of the current turn lost its thoughtSignature\n'],
    [
      'orphan.json',
      'contents[1].parts[0]: functionResponse "read_file" (id "call_0") has no matching functionCall in the model turn before it\n',
    ],
    ['unknown-part.json', 'contents[0].parts[1]: unknown part type: fields "audio"\n'],
  ])('reports %s in one line with its path, exit 1', async (file, line) => {
    expect(await run(['validate', file])).toMatchObject({ code: 1, stdout: line });
  });

  it('refuses contents that is not an array in one line, exit 1, no stack', async () => {
    const result = await run(['validate', 'not-array.json']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'agent-compact validate: not-array.json: contents: contents must be an array, got object\n',
    );
  });

  it.each(Object.keys(unrepaired))(
    'validate --fix writes %s as contents the API accepts, exit 0',
    async (name) => {
      expect((await run(['validate', `${name}.json`])).code).toBe(1);
      const fixed = await run(['validate', `${name}.json`, '--fix', '-o', `${name}-fixed.json`]);
      expect(fixed).toMatchObject({ code: 0, stderr: '' });
      expect(await run(['validate', `${name}-fixed.json`])).toMatchObject({ code: 0, stdout: 'valid\n' });
    },
  );

  it('validate --fix answers an unanswered call with a functionResponse of its name in the next user turn', async () => {
    const fixed = await run([
      'validate',
      'unanswered-call.json',
      '--fix',
      '-o',
      'unanswered-fixed.json',
      '--json',
    ]);
    expect(JSON.parse(fixed.stdout)).toMatchObject({ valid: false, fixedValid: true });
    const body = JSON.parse(readFileSync(join(directory, 'unanswered-fixed.json'), 'utf8'));
    expect(body.contents[2]).toEqual(
      user(
        {
          functionResponse: {
            name: 'read_file',
            response: { error: 'The result of this tool call is missing from the conversation.' },
          },
        },
        { text: 'stop' },
      ),
    );
  });

  // The chat history @google/genai keeps ends so after a call: the client runs the tool and sends
  // its functionResponse with the next request. Such a call is the current turn, not an orphan.
  it.each([
    ['a history', { contents: [user({ text: 'read a.txt' }), model({ text: 'ok' }, call('read_file'))] }],
    [
      'a request',
      {
        contents: [user({ text: 'read a.txt' }), model(call('read_file'), call('ls'))],
        generationConfig: { temperature: 0 },
      },
    ],
  ])(
    'validate --fix leaves the calls of %s that ends with them for the client to answer',
    async (_name, file) => {
      write('current-turn.json', file);
      expect(await run(['validate', 'current-turn.json'])).toMatchObject({ code: 0, stdout: 'valid\n' });
      const fixed = await run(['validate', 'current-turn.json', '--fix', '-o', 'current-turn-fixed.json']);
      expect(fixed).toMatchObject({ code: 0, stdout: 'valid; wrote current-turn-fixed.json unchanged\n' });
      expect(JSON.parse(readFileSync(join(directory, 'current-turn-fixed.json'), 'utf8'))).toEqual(file);
    },
  );

  it('validate --fix still answers a call a later model turn left behind', async () => {
    const fixed = await run([
      'validate',
      'call-then-model.json',
      '--fix',
      '-o',
      'call-then-model-fixed.json',
    ]);
    expect(fixed.code).toBe(0);
    const body = JSON.parse(readFileSync(join(directory, 'call-then-model-fixed.json'), 'utf8'));
    // The model moved on after the call: it is past, and gets its answer.
    expect(body.contents.at(-1)).toEqual(
      user({
        functionResponse: {
          name: 'ls',
          response: { error: 'The result of this tool call is missing from the conversation.' },
        },
      }),
    );
  });

  it('validate --fix leaves a response with an id to a call without one as it is: the API pairs them by name', async () => {
    write('response-id-call-without.json', {
      contents: [
        user({ text: 'go' }),
        model(call('ls')),
        user({ functionResponse: { id: 'r1', name: 'ls', response: { output: 'ok' } } }),
      ],
    });
    expect(await run(['validate', 'response-id-call-without.json'])).toMatchObject({ code: 0 });
    const fixed = await run(['validate', 'response-id-call-without.json', '--fix', '-o', 'same.json']);
    expect(fixed).toMatchObject({ code: 0, stdout: 'valid; wrote same.json unchanged\n' });
  });

  it('counts a Gemini request with its tools and compacts it, keeping the other fields', async () => {
    const counted = await run(['count', '--json', 'request.json']);
    expect(JSON.parse(counted.stdout)).toMatchObject({ format: 'gemini', messages: 17 });
    expect(JSON.parse(counted.stdout).tools).toBeGreaterThan(0);
    const compacted = await run([
      'compact',
      'request.json',
      '--mid',
      '2000',
      '--hard',
      '100000',
      '-o',
      'out.json',
    ]);
    expect(compacted.code).toBe(0);
    const body = JSON.parse(readFileSync(join(directory, 'out.json'), 'utf8'));
    expect(Object.keys(body)).toEqual(Object.keys(geminiBody(8)));
    expect(body.cachedContent).toBe('cachedContents/abc123');
  });

  it("compacts a { contents } file keeping a masked response's own id, willContinue and scheduling", async () => {
    const contents = nonBlockingResponses(geminiSession(8, { ids: false }));
    const proto = contents[4]!.parts[0]!.functionResponse!;
    contents[4]!.parts[0] = {
      function_response: { id: proto.id, name: proto.name, response: proto.response, will_continue: true },
    };
    write('non-blocking.json', { contents });
    const compacted = await run([
      'compact',
      'non-blocking.json',
      '--mid',
      '3000',
      '-o',
      'non-blocking-out.json',
    ]);
    expect(compacted).toMatchObject({
      code: 0,
      stderr: expect.stringMatching(/^(micro|mid): .* 3 item\(s\) archived/),
    });
    const body = JSON.parse(readFileSync(join(directory, 'non-blocking-out.json'), 'utf8'));
    expect(body.contents[2].parts[0].functionResponse).toMatchObject({
      id: 'r2',
      name: 'read_file',
      response: { output: expect.stringMatching(/read_file/) },
      willContinue: true,
      scheduling: 'WHEN_IDLE',
    });
    expect(body.contents[4].parts[0].function_response).toMatchObject({ id: 'r4', will_continue: true });
    expect(body.contents[4].parts[0].function_response).not.toHaveProperty('willContinue');
    expect(body.contents[2].parts[0].functionResponse.response.output).not.toBe(
      contents[2]!.parts[0]!.functionResponse!.response.output,
    );
    expect(await run(['validate', 'non-blocking-out.json'])).toMatchObject({ code: 0, stdout: 'valid\n' });
  });
});
