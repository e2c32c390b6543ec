// OpenAI Responses conversion: what converting a whole request's `input` costs, as a proxy or
// `compactRequest` does on every model call — fromResponsesInput, toResponsesInput and the
// Responses validation, on Codex-like sessions of growing length. `npm run bench -- responses`.

import { validateMessages } from 'agent-compact';
import type { ResponsesInputItem } from 'agent-compact/wire';
import { detectFormat, fromResponsesInput, toResponsesInput } from 'agent-compact/wire';

/** Session lengths in tool-call steps (3 items each: reasoning, call, output). */
const stepCounts = [100, 1000, 5000];
/** Characters of each tool output, about what a `cat` of a 100-line file gives. */
const OUTPUT_CHARACTERS = 4000;
const passes = 7;

function codexSession(steps: number): ResponsesInputItem[] {
  const items: ResponsesInputItem[] = [
    {
      type: 'message',
      role: 'developer',
      content: [{ type: 'input_text', text: 'You are a coding agent.' }],
    },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Make the tests pass.' }] },
  ];
  const output = 'x'.repeat(OUTPUT_CHARACTERS);
  for (let step = 0; step < steps; step++) {
    items.push(
      {
        type: 'reasoning',
        id: `rs_${step}`,
        summary: [],
        encrypted_content: `gAAAA${'e'.repeat(600)}${step}`,
      },
      {
        type: 'function_call',
        id: `fc_${step}`,
        call_id: `call_${step}`,
        name: 'exec_command',
        arguments: `{"cmd":"cat src/f${step}.ts","workdir":"/repo"}`,
        status: 'completed',
      },
      { type: 'function_call_output', call_id: `call_${step}`, output },
    );
  }
  return items;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function time(action: () => unknown): number {
  const samples: number[] = [];
  for (let pass = 0; pass < passes; pass++) {
    const start = performance.now();
    action();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

export async function run(): Promise<void> {
  console.log(
    `median of ${passes} passes; each step = reasoning + function_call + ${OUTPUT_CHARACTERS}-character output\n`,
  );
  console.log(
    '| steps | items | input MB | JSON.parse ms | fromResponsesInput ms | toResponsesInput ms | validate ms |',
  );
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const steps of stepCounts) {
    const input = codexSession(steps);
    const text = JSON.stringify(input);
    const { messages, system } = fromResponsesInput(input);
    // Codex-like items are detected as Responses input, as a proxy decides before validating.
    const format = detectFormat(input);
    const row = [
      steps,
      input.length,
      (text.length / 1e6).toFixed(1),
      time(() => JSON.parse(text)).toFixed(2),
      time(() => fromResponsesInput(input)).toFixed(2),
      time(() => toResponsesInput(messages, system)).toFixed(2),
      time(() => validateMessages(input, { format })).toFixed(2),
    ];
    console.log(`| ${row.join(' | ')} |`);
  }
}
