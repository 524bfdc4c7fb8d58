// The status pill in the top bar: what the engine is doing, in a few words.
export type StatusState = 'starting' | 'loading' | 'ready' | 'generating' | 'error';

export class StatusPill {
  private readonly text: HTMLElement;

  constructor(private readonly root: HTMLElement) {
    this.text = root.querySelector('.status-text')!;
  }

  set(state: StatusState, text: string) {
    this.root.dataset.state = state;
    this.text.textContent = text;
  }
}
