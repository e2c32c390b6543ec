/**
 * The files a shell command edits in place with `sed -i`: mini-swe-agent and SWE-agent runs make
 * most of their edits that way, and without this the file they changed reads as one only read.
 */

import { simpleCommands } from './shell-words.js';

/** Options of sed whose value is the next word when not joined to them (`-e SCRIPT`, `-f FILE`, `-l N`). */
const sedValueOptions = new Set(['e', 'f', 'l']);

/** The files each `sed -i` of `command` edits, as written (`sed -i 's/a/b/' x.py y.py` → x.py, y.py). */
export function inPlaceEdits(command: string): string[] {
  return simpleCommands(command).flatMap(sedInPlaceFiles);
}

function sedInPlaceFiles(words: readonly string[]): string[] {
  if (words[0] !== 'sed' && !words[0]?.endsWith('/sed')) return [];
  let inPlace = false;
  let scripted = false;
  const operands: string[] = [];
  for (let index = 1; index < words.length; index++) {
    const word = words[index]!;
    if (word.startsWith('--')) {
      if (word.startsWith('--in-place')) inPlace = true;
      else if (word === '--expression' || word === '--file') [scripted, index] = [true, index + 1];
      else if (word.startsWith('--expression=') || word.startsWith('--file=')) scripted = true;
    } else if (word.startsWith('-') && word.length > 1) {
      const option = shortOptions(word.slice(1));
      inPlace ||= option.inPlace;
      scripted ||= option.value !== undefined;
      if (option.value === '') index++;
    } else operands.push(word);
  }
  return inPlace ? operands.slice(scripted ? 0 : 1) : [];
}

/** Grouped short options (`-ni`, `-i.bak`, `-Ee`): whether one is `-i`, and the value of `-e`/`-f` ('' when it is the next word). */
function shortOptions(letters: string): { inPlace: boolean; value?: string } {
  for (let at = 0; at < letters.length; at++) {
    const letter = letters[at]!;
    // GNU sed: what follows `-i` in its word is the backup suffix.
    if (letter === 'i') return { inPlace: true };
    if (sedValueOptions.has(letter)) {
      const value = letters.slice(at + 1);
      return letter === 'l' ? { inPlace: false } : { inPlace: false, value };
    }
  }
  return { inPlace: false };
}
