/**
 * The tags harnesses wrap around what they put in the user's turn: Claude Code's slash commands,
 * `!` shell runs, reminders and notifications; Codex's environment, permissions and notices. A
 * user message that opens with another tag (mini-swe-agent's `<pr_description>`, SWE-agent's
 * `<uploaded_files>`) is the user's: the task itself.
 */
const harnessTags = new Set([
  'system-reminder',
  'command-name',
  'command-message',
  'command-args',
  'local-command-caveat',
  'local-command-stdout',
  'local-command-stderr',
  'bash-input',
  'bash-stdout',
  'bash-stderr',
  'task-notification',
  'user-prompt-submit-hook',
  'ide_opened_file',
  'ide_selection',
  'environment_context',
  'user_instructions',
  'collaboration_mode',
  'permissions',
  'skills_instructions',
  'subagent_notification',
  'turn_aborted',
  'user_shell_command',
]);
/**
 * What harnesses write in the user's turn in plain text: Claude Code's `Caveat:` line, Codex's
 * AGENTS.md instructions and its notice of an approved command prefix (a developer message),
 * mini-swe-agent's reply to a turn without exactly one command.
 */
const harnessPrefixes = [
  'Caveat:',
  '# AGENTS.md instructions for',
  'Approved command prefix saved:',
  'Please always provide EXACTLY ONE action in triple backticks',
];
const openingTag = /^<([\w-]+)[\s>/]/;

/** True when a user text block holds nothing the user typed: harness markup or an injected note. */
export function isHarnessText(text: string): boolean {
  const typed = text.replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, '').trim();
  if (typed === '' || harnessPrefixes.some((prefix) => typed.startsWith(prefix))) return true;
  const tag = openingTag.exec(typed)?.[1];
  return tag !== undefined && harnessTags.has(tag);
}

/** Claude Code's note that the user stopped a turn (`[Request interrupted by user for tool use]`). */
const interruptNote = /^\[Request interrupted by user[^\]\n]*\]$/;

/**
 * True for Claude Code's note that the user stopped a turn: it tells that the user interrupted
 * (the ledger keeps it), but it asks for nothing, so it is no request.
 */
export function isInterruptNote(text: string): boolean {
  return interruptNote.test(text.trim());
}

/** Texts the compactor itself puts in the history (a hard compaction's blocks): not the user's words. */
const compactorPrefixes = [
  '<context_summary',
  '<identity>',
  '<session_ledger',
  '<working_set',
  '<file path=',
];

/** True when a user text block is one the compactor wrote. */
export function isCompactorText(text: string): boolean {
  return compactorPrefixes.some((prefix) => text.startsWith(prefix));
}

/** Claude Code's own commands: they steer the session, they ask the agent for nothing. */
const sessionCommands = new Set([
  '/clear',
  '/compact',
  '/config',
  '/context',
  '/cost',
  '/exit',
  '/help',
  '/login',
  '/logout',
  '/model',
  '/resume',
  '/status',
]);

/**
 * What the user typed to run a slash command (`/superpowers:brainstorm ENT-221`), from the markup
 * Claude Code writes for it; undefined for other text and for the commands that only steer the
 * session (`/exit`, `/compact`).
 */
export function slashCommandText(text: string): string | undefined {
  const name = /<command-name>\s*(\/[^<\s]+)\s*<\/command-name>/.exec(text)?.[1];
  if (name === undefined || sessionCommands.has(name)) return undefined;
  const args = /<command-args>([\s\S]*?)<\/command-args>/.exec(text)?.[1]?.trim() ?? '';
  return args === '' ? name : `${name} ${args}`;
}
