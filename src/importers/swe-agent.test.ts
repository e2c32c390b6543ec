import { describe, expect, it } from 'vitest';
import { validateMessages } from '../core/conversation/validate.js';
import { importSweAgent } from './swe-agent.js';

describe('importSweAgent', () => {
  it('reads text-action history: action → tool_use named after its first word, observation → tool_result', () => {
    const trajectory = {
      history: [
        { role: 'system', content: 'SETTING: a shell.', agent: 'primary' },
        { role: 'user', content: 'Here is a demonstration ...', is_demo: true, agent: 'primary' },
        { role: 'user', content: 'ISSUE: fix it', agent: 'primary' },
        {
          role: 'assistant',
          content: 'Find the file.\n```\nfind_file "a.py"\n```',
          thought: 'Find the file.\n',
          action: 'find_file "a.py"\n',
        },
        { role: 'user', content: 'Found 1 match' },
        { role: 'assistant', content: 'Odd.\n```\n| weird\n```', thought: 'Odd.', action: '| weird' },
        { role: 'user', content: 'bash: syntax error' },
        { role: 'assistant', content: 'Done.\n```\nsubmit\n```', thought: 'Done.', action: 'submit\n' },
      ],
      trajectory: [{ action: 'submit\n', observation: '\ndiff --git a/a.py b/a.py\n' }],
    };
    const { conversation, usage, meta } = importSweAgent(JSON.stringify(trajectory));
    expect(meta.format).toBe('swe-agent');
    expect(usage).toEqual([undefined, undefined, undefined]);
    expect(conversation).toMatchInlineSnapshot(`
      {
        "messages": [
          {
            "content": "Here is a demonstration ...",
            "role": "user",
          },
          {
            "content": "ISSUE: fix it",
            "role": "user",
          },
          {
            "content": [
              {
                "text": "Find the file.",
                "type": "text",
              },
              {
                "id": "call_action_1",
                "input": {
                  "command": "find_file "a.py"",
                },
                "name": "find_file",
                "type": "tool_use",
              },
            ],
            "role": "assistant",
          },
          {
            "content": [
              {
                "content": "Found 1 match",
                "tool_use_id": "call_action_1",
                "type": "tool_result",
              },
            ],
            "role": "user",
          },
          {
            "content": [
              {
                "text": "Odd.",
                "type": "text",
              },
              {
                "id": "call_action_2",
                "input": {
                  "command": "| weird",
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
                "content": "bash: syntax error",
                "tool_use_id": "call_action_2",
                "type": "tool_result",
              },
            ],
            "role": "user",
          },
          {
            "content": [
              {
                "text": "Done.",
                "type": "text",
              },
              {
                "id": "call_action_3",
                "input": {
                  "command": "submit",
                },
                "name": "submit",
                "type": "tool_use",
              },
            ],
            "role": "assistant",
          },
          {
            "content": [
              {
                "content": "
      diff --git a/a.py b/a.py
      ",
                "tool_use_id": "call_action_3",
                "type": "tool_result",
              },
            ],
            "role": "user",
          },
        ],
        "system": "SETTING: a shell.",
      }
    `);
    expect(validateMessages(conversation.messages)).toEqual([]);
  });

  it('keeps a final action with no recorded observation as text', () => {
    const trajectory = {
      history: [
        { role: 'user', content: 'ISSUE' },
        { role: 'assistant', content: 'Submit.\n```\nsubmit\n```', thought: 'Submit.', action: 'submit' },
      ],
      trajectory: [{ action: 'submit', observation: '' }],
    };
    const { conversation } = importSweAgent(JSON.stringify(trajectory));
    expect(conversation.messages.at(-1)).toEqual({ role: 'assistant', content: 'Submit.\n```\nsubmit\n```' });
  });

  it('reads function-calling history with tool_call_ids', () => {
    const trajectory = {
      history: [
        { role: 'system', content: 'S', message_type: 'system_prompt' },
        { role: 'user', content: 'ISSUE', message_type: 'observation' },
        {
          role: 'assistant',
          content: 'Look.',
          thought: 'Look.',
          action: 'ls',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } },
          ],
        },
        { role: 'tool', content: 'a.py', tool_call_ids: ['call_1'] },
      ],
    };
    const { conversation } = importSweAgent(JSON.stringify(trajectory));
    expect(conversation).toEqual({
      system: 'S',
      messages: [
        { role: 'user', content: 'ISSUE' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Look.' },
            { type: 'tool_use', id: 'call_1', name: 'bash', input: { command: 'ls' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'a.py' }] },
      ],
    });
  });

  it('repairs reused tool call ids and reports it in meta.repairs', () => {
    const call = (id: string) => ({ id, type: 'function', function: { name: 'bash', arguments: '{}' } });
    const trajectory = {
      history: [
        { role: 'user', content: 'ISSUE' },
        { role: 'assistant', content: 'a', tool_calls: [call('call_1')] },
        { role: 'tool', content: 'one', tool_call_ids: ['call_1'] },
        { role: 'assistant', content: 'b', tool_calls: [call('call_1')] },
        { role: 'tool', content: 'two', tool_call_ids: ['call_1'] },
      ],
    };
    const { conversation, meta, usage } = importSweAgent(JSON.stringify(trajectory));
    expect(meta.repairs?.map((change) => change.kind)).toContain('duplicate-tool-use-renamed');
    expect(validateMessages(conversation.messages)).toEqual([]);
    expect(usage).toHaveLength(2);
  });

  it.each([
    ['no history', '{"trajectory":[]}', /^t\.traj: expected a SWE-agent trajectory/],
    [
      'an entry that is not an object',
      '{"history":[7]}',
      /^t\.traj: history\[0\]: expected object, got number/,
    ],
    [
      'a bad tool call',
      '{"history":[{"role":"assistant","content":"x","tool_calls":[{}]}]}',
      /history\[0\]\.tool_calls\[0\]/,
    ],
  ])('refuses %s with a located message', (_name, text, expected) => {
    expect(() => importSweAgent(text, { source: 't.traj' })).toThrow(expected);
  });
});
