/**
 * A development look at one folder's agent compaction points (`node dist/bench/survival-facts-dev.js
 * [dir] [kind…]` after `npm run build`): per point, every fact the survival probes count and
 * whether agent-compact's hard compaction still shows it (`+` shown, `-` lost), and the ledger it
 * wrote. Defaults to the Codex sessions; the kinds default to commands, errors and user messages.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createCompactor, createExtractiveSummaryModel } from 'agent-compact';
import { importTranscriptFile } from 'agent-compact/importers';
import { createTiktokenCounter } from 'agent-compact/tokenizer';
import { requestText } from '../simulate/key-facts.js';
import { historyFacts, MOST_WORDS } from '../simulate/survival.js';

const directory = process.argv[2] ?? '../shared/data/sessions/codex-entireio-git-sync';
const kinds = new Set(
  process.argv.slice(3).length > 0 ? process.argv.slice(3) : ['commands', 'errors', 'user-messages'],
);
const showLedger = process.env.SHOW_LEDGER === '1';
const wordPattern = /[\p{L}\p{N}_]{3,}/gu;

async function main(): Promise<void> {
  const counter = createTiktokenCounter();
  for (const file of (await readdir(directory)).filter((name) => name.endsWith('.jsonl')).sort()) {
    const transcript = await importTranscriptFile(join(directory, file));
    const { messages, system } = transcript.conversation;
    for (const compaction of transcript.compactions ?? []) {
      const history = messages.slice(0, compaction.index);
      if (history.length === 0) continue;
      const result = await createCompactor({
        counter,
        summarizer: createExtractiveSummaryModel(),
      }).maybeCompact(history, { force: 'hard', ...(system === undefined ? {} : { system }) });
      const text = requestText(undefined, result.messages);
      const words = new Set((text.toLowerCase().match(wordPattern) ?? []) as string[]);
      const facts = historyFacts(history);
      console.log(`\n=== ${file}:${compaction.lineNumber} (${history.length} messages)`);
      for (const kind of ['commands', 'errors'] as const) {
        if (!kinds.has(kind)) continue;
        const all = [...facts.text[kind]];
        const lost = all.filter((fact) => !text.includes(fact));
        console.log(`-- ${kind}: ${all.length - lost.length}/${all.length}`);
        for (const fact of all) console.log(`${text.includes(fact) ? '+' : '-'} ${JSON.stringify(fact)}`);
      }
      if (kinds.has('user-messages')) {
        const shares = facts.userMessages.map((message) => {
          const own = new Set((message.toLowerCase().match(wordPattern) ?? []) as string[]);
          const present = [...own].filter((word) => words.has(word)).length;
          return own.size === 0 ? 1 : present / own.size;
        });
        const kept = shares.filter((share) => share >= MOST_WORDS).length;
        console.log(`-- user-messages: ${kept}/${shares.length}`);
        facts.userMessages.forEach((message, index) => {
          const share = shares[index]!;
          const mark = share >= MOST_WORDS ? '+' : '-';
          console.log(`${mark} ${share.toFixed(2)} ${JSON.stringify(message.slice(0, 160))}`);
        });
      }
      if (showLedger) {
        const ledger = /<session_ledger[\s\S]*?<\/session_ledger>/.exec(text)?.[0];
        console.log(ledger ?? '(no ledger)');
      }
    }
  }
}

await main();
