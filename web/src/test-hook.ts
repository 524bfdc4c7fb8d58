// window.__glassbox: a small window into the page's state for the browser tests (and for curious people
// at the console). It reads what the page shows; it never drives the engine around the page.
import type { AttentionTrace, DoneReason, ErrorReport, MemoryReport, ModelInfo, SamplerSettings } from './protocol';

export interface GenerationRecord {
  prompt: string;
  promptIds: number[];
  ids: number[]; // generated ids in order, an end-of-text token included
  text: string; // prompt + generated text, as shown
  running: boolean;
  engineMs: number; // time the worker spent in forward passes and sampling
  reason: DoneReason | null;
  error: ErrorReport | null; // what the page showed when it ended with an error (its engine code included)
  tokensWhenStopClicked: number | null; // tokens shown when Stop was clicked
}

export interface TestHook {
  formats: string[]; // the model formats the engine reads
  samplerDefaults: SamplerSettings | null; // the engine's, as the worker sent them
  build: string | null; // the engine's build description
  info: ModelInfo | null;
  modelLabel: string | null;
  loads: number;
  failedLoads: number;
  hubRefreshes: number; // how often the hub catalog re-read what the browser keeps (after each load and delete)
  generations: number;
  last: GenerationRecord | null;
  whenLoaded(count?: number): Promise<ModelInfo>;
  whenIdle(): Promise<GenerationRecord | null>;
  whenAttentionDrawn(): Promise<void>;
  attention(layer: number, head: number): Promise<{ begin: number; size: number; total: number; heads: number; matrix: number[]; stats: number[]; firstVisible: number[]; firstKept: number }>;
  memory(): Promise<MemoryReport>;
}

type Waiter = () => boolean;

export function createTestHook(
  readAttention: (layer: number, head: number) => Promise<AttentionTrace>,
  attentionDrawn: () => Promise<void>,
  readMemory: () => Promise<MemoryReport>,
) {
  const waiters: { test: Waiter; resolve: () => void }[] = [];
  const hook: TestHook & { changed(): void } = {
    formats: [],
    samplerDefaults: null,
    build: null,
    info: null,
    modelLabel: null,
    loads: 0,
    failedLoads: 0,
    hubRefreshes: 0,
    generations: 0,
    last: null,
    changed() {
      for (const waiter of [...waiters]) {
        if (waiter.test()) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
    },
    whenLoaded(count = 1) {
      return until(() => hook.loads >= count).then(() => hook.info!);
    },
    whenIdle() {
      return until(() => !hook.last?.running).then(() => hook.last);
    },
    whenAttentionDrawn: () => attentionDrawn(),
    memory: () => readMemory(),
    async attention(layer, head) {
      const trace = await readAttention(layer, head);
      return {
        begin: trace.begin,
        size: trace.size,
        total: trace.total,
        heads: trace.heads,
        matrix: Array.from(trace.matrix),
        stats: Array.from(trace.stats),
        firstVisible: Array.from(trace.firstVisible),
        firstKept: trace.firstKept,
      };
    },
  };
  function until(test: Waiter): Promise<void> {
    if (test()) return Promise.resolve();
    return new Promise((resolve) => waiters.push({ test, resolve }));
  }
  (window as unknown as { __glassbox: TestHook }).__glassbox = hook;
  return hook;
}
