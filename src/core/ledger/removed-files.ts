import { simpleCommands } from './shell-words.js';

/**
 * The files a shell command removes: each operand of its `rm` and `git rm` (not `--cached`, which
 * keeps the file), as written, like `inPlaceEdits` (a `cd` before it is not followed). Without
 * this a script the agent deleted read as a file it edited and that still holds its last text.
 * An operand the shell would expand (`*.py`, `$dir`, `~/x`) names no file known here: left out.
 */
export function removedFiles(command: string): string[] {
  return simpleCommands(command).flatMap(removeOperands);
}

/** Words the shell expands: the files they name are not known from the command. */
const expanded = /[*?[$`~{]/;
/** A redirection (`>`, `2>`, `>>log`): it and, when bare, the word after it are no operand. */
const redirection = /^\d*(?:>>?|<)/;

function removeOperands(words: readonly string[]): string[] {
  const git = words[0] === 'git' && words[1] === 'rm';
  const rm = words[0] === 'rm' || words[0]?.endsWith('/rm') === true;
  if (!git && !rm) return [];
  const operands: string[] = [];
  let options = true;
  for (let index = git ? 2 : 1; index < words.length; index++) {
    const word = words[index]!;
    if (redirection.test(word)) {
      if (/^\d*(?:>>?|<)$/.test(word)) index++;
    } else if (options && word === '--') options = false;
    else if (options && word.startsWith('-') && word.length > 1) {
      if (git && word === '--cached') return [];
    } else if (!expanded.test(word)) operands.push(word);
  }
  return operands;
}
