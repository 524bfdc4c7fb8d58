// Requests a part of the page has in flight, so the browser tests (and nothing else) can wait for quiet.

export class WorkInFlight {
  private pending = 0;
  private readonly waiters: (() => void)[] = [];

  /** `quiet` is what else must settle once nothing is pending (a drawing, a frame); by default nothing. */
  constructor(private readonly quiet: () => Promise<void> = () => Promise.resolve()) {}

  /** Counts `work` as in flight until it settles; returns it unchanged. */
  track<T>(work: Promise<T>): Promise<T> {
    this.pending++;
    return work.finally(() => {
      this.pending--;
      if (this.pending > 0) return;
      const ready = this.waiters.splice(0);
      void this.quiet().then(() => ready.forEach((resolve) => resolve()));
    });
  }

  /** Resolves once no tracked work is pending and `quiet` has settled. */
  idle(): Promise<void> {
    if (this.pending === 0) return this.quiet();
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}

/** One animation frame from now: what the views drew in this task is then on screen. */
export const nextFrame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));
