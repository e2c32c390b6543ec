/** The report the report tests render: a 40-turn session with an odd file name, replayed. Test-only. */
import type { Message } from '../core/model/messages.js';
import { createExtractiveSummaryModel } from '../core/summary/extractive-summary.js';
import { createTiktokenCounter } from '../tokenizer/index.js';
import { renderReport } from './report.js';
import { type SimulationResult, simulate } from './simulate.js';

function transcript(turns: number): { system: string; messages: Message[] } {
  const messages: Message[] = [{ role: 'user', content: 'Find why <checkout> fails & fix it.' }];
  for (let index = 0; index < turns; index++) {
    messages.push(
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: `t${index}`, name: 'read_file', input: { path: `src/module_${index}.py` } },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: `t${index}`,
            content: `def f_${index}():\n    return ${index}\n`.repeat(120),
          },
        ],
      },
    );
  }
  messages.push({ role: 'assistant', content: 'Fixed.' });
  return { system: 'You are a coding agent.', messages };
}

/** The simulation of {@link transcript}(40) and its rendered report. */
export async function renderTestReport(): Promise<{ result: SimulationResult; html: string }> {
  const result = await simulate(
    [{ file: 'runs/<odd> & "name".jsonl', format: 'anthropic', transcript: transcript(40) }],
    {
      summarizer: createExtractiveSummaryModel(),
      counter: createTiktokenCounter(),
      mid: 8000,
      hard: 16000,
    },
  );
  return { result, html: renderReport(result, { subtitle: 'test report' }) };
}
