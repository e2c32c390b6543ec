/** The fixed sections every hard summary has, in order. */
export const summarySections = [
  'Task and constraints',
  'Done so far',
  'Key findings and decisions',
  'Files touched',
  'Errors and fixes',
  'Current state',
  'Next steps',
] as const;

/** One section name of a summary. */
export type SummarySection = (typeof summarySections)[number];

/** The default acknowledgement after a summary, as the seed writes it. */
export const summaryAcknowledgement = 'Understood. Continuing from the summary.';

/** The user turn that joins the acknowledgement to the kept turn when no human request can stand there. */
export const bridgeText = 'Continue with the most recent turn below.';

/** How a hard compaction's summary message starts (its tag may carry attributes). */
export const summaryOpen = '<context_summary';

const identityOpening =
  'You are the same agent as before this summary, with the same tools and instructions. The summary above ' +
  'replaces the earlier conversation';

/** The default identity reminder when none is configured. */
export const defaultIdentity: string = `${identityOpening}; archived tool results can be brought back with the recall tool by id.`;

/** The default identity reminder when the model has no recall tool (the compactor's `recall: false`). */
export const defaultIdentityWithoutRecall: string = `${identityOpening}.`;

/**
 * What each section asks for: the points the compaction prompts of the agents engineers copy ask a
 * model to keep (intent, technical concepts, code with its signatures, errors and their fixes,
 * pending work, the exact current work and the next step in the user's words).
 */
const sectionGuidance: Record<SummarySection, string> = {
  'Task and constraints':
    "the user's intent and every explicit request, quoting the user's own words where they are short; constraints and preferences they stated",
  'Done so far': 'what was completed, in order, with the commands and edits that did it',
  'Key findings and decisions':
    'the key technical concepts and what was learned about the code (causes, how things work, why a choice was made), naming the functions, types and fields involved',
  'Files touched':
    'each file read or changed and why it matters, with the code sections and signatures the work depends on (a short snippet where the exact text matters)',
  'Errors and fixes': 'each error met (its exact message) and how it was fixed, or that it is still open',
  'Current state':
    'exactly what was being worked on right before this summary: the file and function, the edit in progress, what the last edits did',
  'Next steps':
    'the pending tasks and the very next step, in line with the latest request (quote it); nothing the user did not ask for',
};

/** The instructions a summary model receives after the history it summarizes. */
export function summaryInstructions(options: {
  focus?: string;
  mergesPrevious: boolean;
  ledger?: string;
  /** Whether the placeholders name recall ids for the summary to keep. @default true */
  recall?: boolean;
}): string {
  const sections = summarySections.map((name) => `## ${name}\n(${sectionGuidance[name]})`).join('\n');
  const merge = options.mergesPrevious
    ? 'The conversation starts with an earlier <context_summary>. Merge it into your summary: one summary, ' +
      'the same sections, nothing stacked, nothing of it lost that still matters.\n'
    : '';
  const focus = options.focus ? `Keep this in focus: ${options.focus}\n` : '';
  const ids =
    options.recall === false
      ? ''
      : 'Archived results appear as placeholders ending in "recall rN": keep those ids. ';
  const ledger = options.ledger
    ? 'The session ledger below is ground truth recorded by the compactor (files, commands and exit codes, ' +
      "errors, the plan, the user's messages, the code the agent worked on). It is attached to your summary " +
      'as is: do not contradict it and do not copy it; write the narrative it cannot hold (why, what was ' +
      'learned, what is half done).\n' +
      `${options.ledger}\n`
    : '';
  return (
    'Stop working on the task for a moment. Write a dense summary of the conversation so far that lets you ' +
    'continue the task without it. Use exactly these Markdown sections, in this order (what each holds is ' +
    'in brackets; do not repeat the brackets):\n' +
    `${sections}\n` +
    'Keep exact file paths, commands, identifiers, signatures, error messages and decisions. ' +
    ids +
    'Do not call tools. Answer with the summary only.\n' +
    merge +
    focus +
    ledger
  );
}

/** Splits a summary into its sections (text before the first heading goes under the first one). */
export function parseSummarySections(text: string): Map<SummarySection, string[]> {
  const sections = new Map<SummarySection, string[]>(summarySections.map((name) => [name, []]));
  let current: SummarySection = summarySections[0];
  for (const line of text.split('\n')) {
    const heading = /^#{1,3}\s+(.+?)\s*$/.exec(line)?.[1];
    const section = summarySections.find((name) => name.toLowerCase() === heading?.toLowerCase());
    if (section) {
      current = section;
      continue;
    }
    if (line.trim() !== '') sections.get(current)!.push(line);
  }
  return sections;
}

/** Writes sections back as Markdown; empty sections say so (or, with `onlyPresent`, are left out). */
export function formatSummarySections(
  sections: Map<SummarySection, string[]>,
  { onlyPresent = false } = {},
): string {
  return summarySections
    .filter((name) => !onlyPresent || (sections.get(name)?.length ?? 0) > 0)
    .map((name) => {
      const lines = sections.get(name) ?? [];
      return `## ${name}\n${lines.length > 0 ? lines.join('\n') : '- (none)'}`;
    })
    .join('\n\n');
}
