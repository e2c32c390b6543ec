// The installed `agent-compact` command (@agent-compact/proxy's bin): help and `compact` with each
// SDK's summarizer; and the lab's bin (the private agent-compact-workspace) running the reference
// agent (`run`) on each provider, against the scripted server.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { agentConversation, invalidRequests, scriptedServer } from './_support.mjs';

const bin = path.resolve('node_modules', '.bin', 'agent-compact');
const labBin = path.resolve('node_modules', 'agent-compact-workspace', 'dist', 'lab', 'bin.js');
const keys = { ANTHROPIC_API_KEY: 'test-key', OPENAI_API_KEY: 'test-key' };

/** Runs the installed command; resolves with its exit code and output, whatever the code. */
async function agentCompact(args, { cwd }) {
  const [file, ...rest] = args[0] === 'run' ? [process.execPath, labBin, ...args] : [bin, ...args];
  try {
    const { stdout, stderr } = await promisify(execFile)(file, rest, {
      cwd,
      env: { ...process.env, ...keys },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    return { code: error.code, stdout: error.stdout, stderr: error.stderr };
  }
}

async function workspace(t) {
  const directory = await mkdtemp(path.join(tmpdir(), 'compat-cli-'));
  t.after(() => rm(directory, { recursive: true, force: true }));
  return directory;
}

test('agent-compact --help lists the commands', async (t) => {
  const result = await agentCompact(['--help'], { cwd: await workspace(t) });
  assert.equal(result.code, 0);
  assert.match(result.stdout, /compact\s+compact a conversation/);
});

for (const provider of ['openai', 'anthropic']) {
  test(`agent-compact compact --summarizer ${provider}:MODEL summarizes through the ${provider} SDK`, async (t) => {
    const server = await scriptedServer(t, { script: ['## Task\n- Fix the tests.'] });
    const directory = await workspace(t);
    await writeFile(path.join(directory, 'big.json'), JSON.stringify(agentConversation(30, 400)));
    const baseURL = provider === 'openai' ? server.openaiBaseURL : server.anthropicBaseURL;
    const args = ['compact', 'big.json', '--mid', '10000', '--hard', '20000', '--json'];
    const result = await agentCompact([...args, '--summarizer', `${provider}:small`, '--base-url', baseURL], {
      cwd: directory,
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(JSON.parse(result.stdout).layer, 'hard');
    assert.equal(server.requests.length, 1);
    assert.deepEqual(invalidRequests(server), []);
  });

  test(`agent-compact run: the reference agent reads a file and answers over the ${provider} SDK`, async (t) => {
    const server = await scriptedServer(t, {
      script: [
        { type: 'tool-calls', calls: [{ name: 'read_file', input: { path: 'notes.txt' } }] },
        'The notes say: ship it.',
      ],
    });
    const directory = await workspace(t);
    await writeFile(path.join(directory, 'notes.txt'), 'ship it\n');
    const baseURL = provider === 'openai' ? server.openaiBaseURL : server.anthropicBaseURL;
    const args = ['run', 'What do the notes say?', '--provider', provider, '--model', 'scripted-model'];
    const result = await agentCompact([...args, '--base-url', baseURL, '--workspace', directory, '--yes'], {
      cwd: directory,
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, 'The notes say: ship it.\n');
    assert.equal(server.requests.length, 2);
    assert.match(JSON.stringify(server.requests[1].body), /ship it/);
    assert.deepEqual(invalidRequests(server), []);
  });
}
