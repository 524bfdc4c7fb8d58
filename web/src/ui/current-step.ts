// The one current step every view shares: a position of the sequence (a query of the attention, a column of
// the logit lens, the step whose logits were at that position). Views listen; any of them may select.
export type StepListener = (position: number) => void;

export class CurrentStep {
  private listeners: StepListener[] = [];
  private selected = -1; // -1: none yet (the views then follow the newest position)
  /** Positions 0 .. last of the sequence that can be selected (prompt and generated tokens). */
  last = -1;
  /** The position followed when none is pinned: the newest one the model has read. */
  newest = -1;
  /** Tokens of the prompt (BOS included): position promptLength - 1 drew the first generated token. */
  promptLength = 0;

  get position(): number {
    return this.selected >= 0 ? Math.min(this.selected, this.last) : this.newest;
  }

  /** Whether the user picked a position (else the views follow the newest one). */
  get pinned(): boolean {
    return this.selected >= 0;
  }

  /** The index of the generated token drawn from the logits at `position` (-1: a prompt position). */
  stepIndexAt(position = this.position): number {
    const index = position - (this.promptLength - 1);
    return index >= 0 ? index : -1;
  }

  select(position: number) {
    if (this.last < 0) return;
    this.selected = Math.max(0, Math.min(position, this.last));
    this.notify();
  }

  /** The sequence grew or was replaced: `last` positions, keeping a pinned selection that still exists. */
  setExtent(last: number, newest: number, promptLength: number, keepSelection: boolean) {
    this.last = last;
    this.newest = Math.min(newest, last);
    this.promptLength = promptLength;
    if (!keepSelection || this.selected > last) this.selected = -1;
    this.notify();
  }

  /** Follows the newest position again. */
  follow() {
    this.selected = -1;
    this.notify();
  }

  onChange(listener: StepListener) {
    this.listeners.push(listener);
  }

  private notify() {
    const position = this.position;
    for (const listener of this.listeners) listener(position);
  }
}
