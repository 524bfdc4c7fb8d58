// The one current step every view shares: a position of the sequence (a query of the attention, a column of
// the logit lens, the step whose logits were at that position). It lives in the page's store (its
// `selection`); this class reads and moves it. Views listen; any of them may select.
import type { PageStore, Selection } from '../state/page-state';

export type StepListener = (position: number) => void;

export class CurrentStep {
  constructor(private readonly store: PageStore) {}

  private get selection(): Selection {
    return this.store.state.selection;
  }

  /** Positions 0 .. last of the sequence that can be selected (prompt and generated tokens). */
  get last(): number {
    return this.selection.last;
  }

  /** The position followed when none is pinned: the newest one the model has read. */
  get newest(): number {
    return this.selection.newest;
  }

  /** Tokens of the prompt (BOS included): position promptLength - 1 drew the first generated token. */
  get promptLength(): number {
    return this.selection.promptLength;
  }

  get position(): number {
    return positionOf(this.selection);
  }

  /** Whether the user picked a position (else the views follow the newest one). */
  get pinned(): boolean {
    return this.selection.selected >= 0;
  }

  /** The index of the generated token drawn from the logits at `position` (-1: a prompt position). */
  stepIndexAt(position = this.position): number {
    const index = position - (this.promptLength - 1);
    return index >= 0 ? index : -1;
  }

  select(position: number) {
    if (this.last < 0) return;
    this.store.set({ selection: { ...this.selection, selected: Math.max(0, Math.min(position, this.last)) } });
  }

  /** The sequence grew or was replaced: `last` positions, keeping a pinned selection that still exists. */
  setExtent(last: number, newest: number, promptLength: number, keepSelection: boolean) {
    const selected = !keepSelection || this.selection.selected > last ? -1 : this.selection.selected;
    this.store.set({ selection: { selected, last, newest: Math.min(newest, last), promptLength } });
  }

  /** Follows the newest position again. */
  follow() {
    this.store.set({ selection: { ...this.selection, selected: -1 } });
  }

  /** Every change of the selection (a new selection object each time, so selecting the same position again is heard too). */
  onChange(listener: StepListener) {
    this.store.subscribe((state) => listener(positionOf(state.selection)), ['selection']);
  }
}

/** The position the views show: the pinned one (within the sequence), else the newest. */
export function positionOf(selection: Selection): number {
  return selection.selected >= 0 ? Math.min(selection.selected, selection.last) : selection.newest;
}
