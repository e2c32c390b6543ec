/**
 * A shell command's words as the shell reads them, enough to find what it runs on which files
 * (`sed -i`, `rm`): the commands it chains, each a list of words with quotes removed.
 */

/**
 * `command` as simple commands of unquoted words: split at `&&`, `||`, `;`, `|` and line breaks
 * outside quotes; quotes removed; a backslash-newline joins lines. A heredoc's lines are its text,
 * not commands: left out (a `cat > clean.sh <<EOF` holding `rm -rf build` removes nothing).
 */
export function simpleCommands(script: string): string[][] {
  const command = withoutHeredocBodies(script);
  const commands: string[][] = [];
  let words: string[] = [];
  let word: string | undefined;
  let quote: '"' | "'" | undefined;
  const endWord = () => {
    if (word !== undefined) words.push(word);
    word = undefined;
  };
  const endCommand = () => {
    endWord();
    if (words.length > 0) commands.push(words);
    words = [];
  };
  for (let at = 0; at < command.length; at++) {
    const char = command[at]!;
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
      else if (quote === '"' && char === '\\' && at + 1 < command.length) word += command[++at]!;
      else word += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      word ??= '';
    } else if (char === '\\' && command[at + 1] === '\n') at++;
    else if (char === '\\' && at + 1 < command.length) word = (word ?? '') + command[++at]!;
    else if (char === ' ' || char === '\t') endWord();
    else if (char === '\n' || char === ';' || char === '|' || char === '&') endCommand();
    else word = (word ?? '') + char;
  }
  endCommand();
  return commands;
}

/** A heredoc's opening: `<<EOF`, `<<-'EOF'`, `<< "END"`; its word ends the body. */
const heredocStart = /<<(-?)\s*(['"]?)([\w.-]+)\2/;

/** `script` without the lines of its heredocs (`<<-` bodies end at a line of tabs and the word). */
function withoutHeredocBodies(script: string): string {
  if (!script.includes('<<')) return script;
  const kept: string[] = [];
  let end: { word: string; tabs: boolean } | undefined;
  for (const line of script.split('\n')) {
    if (end !== undefined) {
      if ((end.tabs ? line.replace(/^\t+/, '') : line) === end.word) end = undefined;
      continue;
    }
    kept.push(line);
    const start = heredocStart.exec(line);
    if (start) end = { word: start[3]!, tabs: start[1] === '-' };
  }
  return kept.join('\n');
}
