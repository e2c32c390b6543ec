import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { printNextNeedTargets } from '/work/main/.snap3/bench/replay-next-need.js';
import { simulate, simulationInputOf } from '/work/main/.snap3/simulate/simulate.js';
import { importTranscriptFile } from '/work/main/.snap3/importers/index.js';
import { createExtractiveSummaryModel } from '/work/main/.snap3/core/summary/extractive-summary.js';
import { createTiktokenCounter } from '/work/main/.snap3/tokenizer/index.js';
const root = '/work/shared/data/sessions';
const agentCompact = JSON.parse(process.argv[2] ?? '{}');
const inputs = [];
for (const folder of (await readdir(root, { withFileTypes: true })).filter((e) => e.isDirectory())) {
  const dir = join(root, folder.name);
  for (const file of (await readdir(dir)).filter((n) => n.endsWith('.jsonl')).sort())
    inputs.push(simulationInputOf(`${folder.name}/${file}`, await importTranscriptFile(join(dir, file))));
}
const result = await simulate(inputs, { strategies: ['agent-compact', 'claude-code', 'opencode'], summarizer: createExtractiveSummaryModel(), counter: createTiktokenCounter(), window: 200000, agentCompact });
printNextNeedTargets(result, JSON.stringify(agentCompact));
