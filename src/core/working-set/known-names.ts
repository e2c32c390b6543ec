import { identifierWords } from './code-names.js';
import type { WorkingSetFile, WorkingSetSearch, WorkingSetState } from './working-set-state.js';

/** The arrays a file's names came from when last counted (the recorder replaces them, never edits them). */
interface CountedFile {
  definitions: WorkingSetFile['definitions'];
  names: string[] | undefined;
}

/**
 * The names the working set knows — definitions, the names files use, the words of search patterns —
 * counted by source, so that each turn recounts only the file or search it changed instead of
 * rebuilding the whole set (40 files of outlines and names) on every tool result.
 */
export class KnownNames {
  private readonly counts = new Map<string, number>();
  private readonly files = new Map<WorkingSetFile, CountedFile>();
  private readonly searches = new Set<WorkingSetSearch>();

  constructor(private readonly state: WorkingSetState) {
    this.sync();
    // A state restored from storage may count names none of its sources still hold.
    for (const name of Object.keys(state.uses)) if (!this.counts.has(name)) delete state.uses[name];
  }

  get size(): number {
    return this.counts.size;
  }

  has(name: string): boolean {
    return this.counts.has(name);
  }

  /** Brings the counts up to the state; uses of a name no longer known are dropped with it. */
  sync(): void {
    const gone = new Set<string>();
    const current = new Set(this.state.files);
    for (const [file, counted] of this.files) {
      if (current.has(file) && counted.definitions === file.definitions && counted.names === file.names)
        continue;
      this.countFile(counted, -1, gone);
      this.files.delete(file);
    }
    for (const file of current) {
      if (this.files.has(file)) continue;
      this.countFile(file, 1, gone);
      this.files.set(file, { definitions: file.definitions, names: file.names });
    }
    const searches = new Set(this.state.searches);
    for (const search of this.searches) {
      if (searches.has(search)) continue;
      this.countSearch(search, -1, gone);
      this.searches.delete(search);
    }
    for (const search of searches) {
      if (this.searches.has(search)) continue;
      this.countSearch(search, 1, gone);
      this.searches.add(search);
    }
    const { uses } = this.state;
    for (const name of gone) if (!this.counts.has(name)) delete uses[name];
  }

  /** Plain loops, no iterators: this runs on every tool result the working set records. */
  private countFile(
    file: Pick<WorkingSetFile, 'definitions' | 'names'>,
    by: 1 | -1,
    gone: Set<string>,
  ): void {
    for (const definition of file.definitions) this.add(definition.name, by, gone);
    for (const name of file.names ?? []) this.add(name, by, gone);
  }

  private countSearch(search: WorkingSetSearch, by: 1 | -1, gone: Set<string>): void {
    for (const [name] of search.pattern.matchAll(identifierWords)) this.add(name, by, gone);
  }

  private add(name: string, by: 1 | -1, gone: Set<string>): void {
    const left = (this.counts.get(name) ?? 0) + by;
    if (left > 0) this.counts.set(name, left);
    else {
      this.counts.delete(name);
      gone.add(name);
    }
  }
}
