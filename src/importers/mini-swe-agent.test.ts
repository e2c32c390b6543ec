import { describe, expect, it } from 'vitest';
import { validateMessages } from '../core/conversation/validate.js';
import { importMiniSweAgent } from './mini-swe-agent.js';

function usage(promptTokens: number) {
  return {
    response: {
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: 9,
        prompt_tokens_details: { cached_tokens: 100 },
      },
    },
  };
}

const trajectory = {
  instance_id: 'demo__demo-1',
  trajectory_format: 'mini-swe-agent-1',
  info: { mini_version: '1.15.0' },
  messages: [
    { role: 'system', content: 'You run one bash command per turn.' },
    { role: 'user', content: 'Fix the bug.' },
    { role: 'assistant', content: 'THOUGHT: look around.\n\n```bash\nls -la\n```', extra: usage(1000) },
    { role: 'user', content: '<returncode>0</returncode>\n<output>\nsetup.py\n</output>' },
    {
      role: 'assistant',
      content: 'THOUGHT: two at once.\n\n```bash\nls\n```\n\n```bash\npwd\n```',
      extra: usage(1100),
    },
    {
      role: 'user',
      content: 'Please always provide EXACTLY ONE action in triple backticks, found 2 actions.',
    },
    { role: 'assistant', content: 'THOUGHT: run the tests.\n\n```bash\npytest -q\n```', extra: usage(1200) },
    { role: 'user', content: '<returncode>1</returncode>\n<output>\n1 failed\n</output>' },
    { role: 'assistant', content: '```bash\nsleep 999\n```' },
    { role: 'user', content: 'The last command <command>sleep 999</command> timed out and has been killed.' },
  ],
};

describe('importMiniSweAgent', () => {
  it('turns each single bash block into a bash tool_use answered by the next user message', () => {
    const {
      conversation,
      usage: turns,
      meta,
    } = importMiniSweAgent(JSON.stringify(trajectory), { source: 'x.traj.json' });
    expect(meta).toEqual({ format: 'mini-swe-agent', source: 'x.traj.json' });
    expect(conversation).toMatchInlineSnapshot(`
      {
        "messages": [
          {
            "content": "Fix the bug.",
            "role": "user",
          },
          {
            "content": [
              {
                "text": "THOUGHT: look around.",
                "type": "text",
              },
              {
                "id": "call_bash_1",
                "input": {
                  "command": "ls -la",
                },
                "name": "bash",
                "type": "tool_use",
              },
            ],
            "role": "assistant",
          },
          {
            "content": [
              {
                "content": "<returncode>0</returncode>
      <output>
      setup.py
      </output>",
                "tool_use_id": "call_bash_1",
                "type": "tool_result",
              },
            ],
            "role": "user",
          },
          {
            "content": "THOUGHT: two at once.

      \`\`\`bash
      ls
      \`\`\`

      \`\`\`bash
      pwd
      \`\`\`",
            "role": "assistant",
          },
          {
            "content": "Please always provide EXACTLY ONE action in triple backticks, found 2 actions.",
            "role": "user",
          },
          {
            "content": [
              {
                "text": "THOUGHT: run the tests.",
                "type": "text",
              },
              {
                "id": "call_bash_2",
                "input": {
                  "command": "pytest -q",
                },
                "name": "bash",
                "type": "tool_use",
              },
            ],
            "role": "assistant",
          },
          {
            "content": [
              {
                "content": "<returncode>1</returncode>
      <output>
      1 failed
      </output>",
                "is_error": true,
                "tool_use_id": "call_bash_2",
                "type": "tool_result",
              },
            ],
            "role": "user",
          },
          {
            "content": [
              {
                "id": "call_bash_3",
                "input": {
                  "command": "sleep 999",
                },
                "name": "bash",
                "type": "tool_use",
              },
            ],
            "role": "assistant",
          },
          {
            "content": [
              {
                "content": "The last command <command>sleep 999</command> timed out and has been killed.",
                "is_error": true,
                "tool_use_id": "call_bash_3",
                "type": "tool_result",
              },
            ],
            "role": "user",
          },
        ],
        "system": "You run one bash command per turn.",
      }
    `);
    expect(validateMessages(conversation.messages)).toEqual([]);
    expect(turns).toEqual([
      { prompt_tokens: 1000, completion_tokens: 9, prompt_tokens_details: { cached_tokens: 100 } },
      { prompt_tokens: 1100, completion_tokens: 9, prompt_tokens_details: { cached_tokens: 100 } },
      { prompt_tokens: 1200, completion_tokens: 9, prompt_tokens_details: { cached_tokens: 100 } },
      undefined,
    ]);
  });

  it('keeps a final assistant turn with no answer as text', () => {
    const shortRun = { ...trajectory, messages: trajectory.messages.slice(0, 3) };
    const { conversation } = importMiniSweAgent(JSON.stringify(shortRun));
    expect(conversation.messages.at(-1)).toEqual({
      role: 'assistant',
      content: 'THOUGHT: look around.\n\n```bash\nls -la\n```',
    });
    expect(validateMessages(conversation.messages)).toEqual([]);
  });

  it.each([
    ['broken JSON', '{"messages": [', /^run\.json:1:15: broken JSON/],
    [
      'no messages',
      '{"trajectory_format":"mini-swe-agent-1"}',
      /^run\.json: expected a mini-swe-agent trajectory/,
    ],
    [
      'a bad role',
      '{"messages":[{"role":"tool","content":"x"}]}',
      /^run\.json: messages\[0\]\.role: expected/,
    ],
    [
      'bad content',
      '{"messages":[{"role":"user","content":5}]}',
      /^run\.json: messages\[0\]\.content: expected string, got number/,
    ],
  ])('refuses %s with a located message', (_name, text, expected) => {
    expect(() => importMiniSweAgent(text, { source: 'run.json' })).toThrow(expected);
  });
});
