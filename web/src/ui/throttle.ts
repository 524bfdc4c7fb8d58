// How the page keeps redrawing cheap while tokens stream: each rule written once, used by every view that
// follows a running generation.

/** The shortest pause between two live refreshes of a view that follows a generation. */
export const LIVE_MS = 500;
/** A live refresh waits this many times what the last one cost: refreshes take at most ~1/10 of the time. */
const LIVE_COST = 9;

/**
 * A view that follows a running generation: first LIVE_MS after `start()` (a short generation is done by then
 * and simply shows its state at the end), then whenever `poke()` finds the pause since the last refresh is
 * both LIVE_MS and LIVE_COST times what that refresh cost. Generation waits while the worker reads and the
 * page draws, so refreshes take at most about a tenth of its time. While none of `watched` is in sight, the
 * view is not refreshed at all.
 */
export class LiveRefresh {
  private busy = false;
  private due = 0;
  private readonly inSight = new Map<Element, boolean>();

  /**
   * `refresh` reads and draws; `cost` says what the last refresh cost in ms (by default, the time from its
   * start until its promise settled).
   */
  constructor(private readonly refresh: () => Promise<unknown>, watched: Element[], private readonly cost?: () => number) {
    const observer = new IntersectionObserver((entries) => entries.forEach((e) => this.inSight.set(e.target, e.isIntersecting)));
    for (const element of watched) observer.observe(element);
  }

  /** A generation starts: the first refresh is due LIVE_MS from now. */
  start() {
    this.due = performance.now() + LIVE_MS;
  }

  /** Something new to show: refreshes when it is due, no refresh is under way and the view is in sight. */
  poke() {
    if (this.busy || performance.now() < this.due || ![...this.inSight.values()].some(Boolean)) return;
    this.busy = true;
    const started = performance.now();
    void this.refresh().finally(() => {
      this.busy = false;
      const now = performance.now();
      this.due = now + Math.max(LIVE_MS, LIVE_COST * (this.cost ? this.cost() : now - started));
    });
  }
}

/**
 * Runs `draw` in an animation frame at most every `ms` however often `request()` is called: while tokens
 * stream faster than that, the views that follow the newest one redraw on this beat rather than every frame.
 */
export class FrameThrottle {
  private frame = 0;
  private timer = 0;
  private drawnAt = 0;

  constructor(private readonly ms: number, private readonly draw: () => void) {}

  request() {
    if (this.frame || this.timer) return;
    this.timer = window.setTimeout(() => {
      this.timer = 0;
      this.frame = requestAnimationFrame(() => {
        this.frame = 0;
        this.drawnAt = performance.now();
        this.draw();
      });
    }, Math.max(0, this.drawnAt + this.ms - performance.now()));
  }
}

/** `due()` is true at most once every `ms`: for work that may follow every token but need not. */
export class Every {
  private next = 0;

  constructor(private readonly ms: number) {}

  due(): boolean {
    const now = performance.now();
    if (now < this.next) return false;
    this.next = now + this.ms;
    return true;
  }
}
