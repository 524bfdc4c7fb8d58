// A small typed observable: one state object whose fields are replaced (never edited in place), and
// listeners that hear which fields changed. No framework: the page's modules subscribe and draw.

export type Listener<S> = (state: Readonly<S>, changed: ReadonlySet<keyof S>) => void;

export class Store<S extends object> {
  private current: S;
  private readonly listeners: { listener: Listener<S>; keys: ReadonlySet<keyof S> | null }[] = [];

  constructor(initial: S) {
    this.current = { ...initial };
  }

  get state(): Readonly<S> {
    return this.current;
  }

  /**
   * Replaces the fields of `patch`, then tells the listeners of the fields that changed (by identity: a new
   * object or array is a change, the same one is not). Listeners hear the change in the order they
   * subscribed; a listener that sets the store in turn is heard at once, so each reads the newest state.
   */
  set(patch: Partial<S>) {
    const changed = new Set<keyof S>();
    for (const key of Object.keys(patch) as (keyof S)[]) {
      if (!Object.is(this.current[key], patch[key])) changed.add(key);
    }
    if (changed.size === 0) return;
    this.current = { ...this.current, ...patch };
    for (const { listener, keys } of [...this.listeners]) {
      if (!keys || [...changed].some((key) => keys.has(key))) listener(this.current, changed);
    }
  }

  /** Calls `listener` after every change of one of `keys` (of any field when none are named); returns the unsubscribe. */
  subscribe(listener: Listener<S>, keys?: (keyof S)[]): () => void {
    const entry = { listener, keys: keys ? new Set(keys) : null };
    this.listeners.push(entry);
    return () => {
      const i = this.listeners.indexOf(entry);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }
}
