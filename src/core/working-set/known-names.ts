import { forEachIdentifier } from './code-names.js';
import type { WorkingSetFile, WorkingSetSearch, WorkingSetState } from './working-set-state.js';

/** The arrays a file's names came from when last counted (the recorder replaces them, never edits them). */
interface CountedFile {
  definitions: WorkingSetFile['definitions'];
  names: string[] | undefined;
  /** The sync that last found the file in the state. */
  seen: number;
}

/**
 * The names the working set knows — definitions, the names files use, the words of search patterns —
 * counted by source, so that each turn recounts only the file or search it changed instead of
 * rebuilding the whole set (40 files of outlines and names) on every tool result.
 */
export class KnownNames {
  private readonly counts = new Map<string, number>();
  private readonly files = new Map<WorkingSetFile, CountedFile>();
  /** The searches counted, with the sync that last found each in the state. */
  private readonly searches = new Map<WorkingSetSearch, number>();
  /** Names whose count fell to 0 during a sync (some may be counted again before it ends). */
  private readonly gone: string[] = [];
  private syncs = 0;

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

  /**
   * Brings the counts up to the state; uses of a name no longer known are dropped with it. One
   * pass over the state's files and searches, marking each as seen in this sync, then one over
   * those counted before: no sets built per call, as this runs on every tool result.
   */
  sync(): void {
    const sync = ++this.syncs;
    for (const file of this.state.files) {
      const counted = this.files.get(file);
      if (counted !== undefined && counted.definitions === file.definitions && counted.names === file.names) {
        counted.seen = sync;
        continue;
      }
      if (counted !== undefined) this.countFile(counted, -1);
      this.countFile(file, 1);
      this.files.set(file, { definitions: file.definitions, names: file.names, seen: sync });
    }
    for (const [file, counted] of this.files) {
      if (counted.seen === sync) continue;
      this.countFile(counted, -1);
      this.files.delete(file);
    }
    for (const search of this.state.searches) {
      if (!this.searches.has(search)) this.countSearch(search, 1);
      this.searches.set(search, sync);
    }
    for (const [search, seen] of this.searches) {
      if (seen === sync) continue;
      this.countSearch(search, -1);
      this.searches.delete(search);
    }
    this.dropUsesOfGone();
  }

  /**
   * Drops the uses of the names that went in this sync and were not counted again. Looking up in
   * `uses` a name it does not hold goes through V8's string table (a `delete` through the runtime),
   * and most names that go were never used: when `uses` holds fewer names than went, its own names
   * are checked against those that went instead. The same names are deleted either way.
   */
  private dropUsesOfGone(): void {
    const { gone } = this;
    const { uses } = this.state;
    const used = gone.length === 0 ? [] : Object.keys(uses);
    if (used.length < gone.length) {
      const unknown = used.filter((name) => !this.counts.has(name));
      if (unknown.length > 0) {
        const went = new Set(gone);
        for (const name of unknown) if (went.has(name)) delete uses[name];
      }
    } else
      for (const name of gone) if (!this.counts.has(name) && Object.hasOwn(uses, name)) delete uses[name];
    gone.length = 0;
  }

  /** Plain loops, no iterators: this runs on every tool result the working set records. */
  private countFile(file: Pick<WorkingSetFile, 'definitions' | 'names'>, by: 1 | -1): void {
    for (const definition of file.definitions) this.add(definition.name, by);
    for (const name of file.names ?? []) this.add(name, by);
  }

  private countSearch(search: WorkingSetSearch, by: 1 | -1): void {
    forEachIdentifier(search.pattern, (name) => this.add(name, by));
  }

  private add(name: string, by: 1 | -1): void {
    const left = (this.counts.get(name) ?? 0) + by;
    if (left > 0) this.counts.set(name, left);
    else {
      this.counts.delete(name);
      this.gone.push(name);
    }
  }
}
