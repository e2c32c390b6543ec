// The deterministic agent session the crash worker grows turn by turn, shared by the worker and
// the test that checks nothing was lost. Turn 0 is the task; every later turn is an assistant
// message (text and one or more tool calls) and the user message answering it.

/** A small deterministic pseudo-random number in [0, 1) for turn `n` and salt `salt`. */
function noise(n, salt) {
  let x = Math.imul(n ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(salt + 1, 0xc2b2ae35);
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  return (x >>> 0) / 4294967296;
}

function output(n, call, lines) {
  return Array.from(
    { length: lines },
    (_, line) => `${line + 1}\tturn ${n} call ${call}: const value${line} = compute(${n * 100 + line});`,
  ).join('\n');
}

/** The messages turn `n` adds to the session. */
export function crashSessionTurn(n) {
  if (n === 0) {
    return [{ role: 'user', content: 'Fix the flaky tests in src/ and keep the public API unchanged.' }];
  }
  const calls = n % 5 === 0 ? 3 : 1;
  const uses = [];
  const results = [];
  for (let call = 0; call < calls; call++) {
    const id = `toolu_${n}_${call}`;
    const lines = Math.floor(noise(n, call) * 60);
    const tool = (n + call) % 2 === 0 ? 'read_file' : 'bash';
    uses.push({
      type: 'tool_use',
      id,
      name: tool,
      input: tool === 'read_file' ? { path: `src/module-${n}-${call}.ts` } : { command: `npm test -- part${n}` },
    });
    results.push({
      type: 'tool_result',
      tool_use_id: id,
      content: output(n, call, lines),
      ...(n % 7 === 0 ? { is_error: true } : {}),
    });
  }
  const text = `Turn ${n}: ${'I will check the next part of the code. '.repeat(1 + Math.floor(noise(n, 9) * 30))}`;
  const user = n % 11 === 0 ? [...results, { type: 'text', text: `Turn ${n}: also keep the logs short.` }] : results;
  return [
    { role: 'assistant', content: [{ type: 'text', text }, ...uses] },
    { role: 'user', content: user },
  ];
}

/** The session after `turns` turns (turn 0, the task, included). */
export function crashSession(turns) {
  const messages = [];
  for (let n = 0; n <= turns; n++) messages.push(...crashSessionTurn(n));
  return messages;
}
