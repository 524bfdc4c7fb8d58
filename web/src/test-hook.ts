// window.__glassbox: a small window into the page's state for the browser tests (and for curious people
// at the console). It reads the page's store (state/page-state.ts) and what the page shows; it never drives
// the engine around the page, and the page never reads it.
import type { AttentionTrace, MemoryReport, ModelInfo, SamplerSettings } from './protocol';
import type { AblationResult, AttentionBatch, FlopsResult, ModelInspectorInfo, MeasureResult, RopePicture } from './protocol-model-inspector';
import type { FillMaskResult, SimilarityResult } from './protocol-encoder';
import type { AttributionReply, PatchReply } from './protocol-circuits';
import type { LabResult, LensWindow, NeuronsReply, ResidualNorms, StepByStep, StepPipeline } from './protocol-step-inspector';
import { positionOf } from './ui/current-step';
import type { GenerationRecord, PageState, PageStore } from './state/page-state';
import type { TrainRecord } from './views/train-lab';

export type { GenerationRecord };

/** What the tests read of the model inspector (window.__glassbox.inside). */
export interface InsideHook {
  readonly batch: AttentionBatch | null;
  readonly measurement: MeasureResult | null;
  readonly ablation: AblationResult | null;
  readonly ablationActive: boolean;
  readonly anatomy: ModelInspectorInfo['anatomy'] | null;
  readonly flops: FlopsResult | null;
  rope(): RopePicture | null;
  readonly headViewQuery: number; // the position the head view looks from (the current step, within its window)
  whenIdle(): Promise<void>;
}

/** What the tests read of the step inspector (window.__glassbox.seeInside). */
export interface SeeInsideHook {
  readonly position: number;
  readonly sequence: number[]; // prompt ids and generated ids
  readonly promptLength: number;
  readonly steps: { position: number; chosen: number; pipeline: StepPipeline | null }[];
  readonly detail: StepByStep | null;
  readonly lens: LensWindow | null;
  readonly exported: string | null;
  whenIdle(): Promise<void>;
}

/** What the tests read of the attention lab (window.__glassbox.lab): its newest comparison, as drawn. */
export interface LabHook {
  readonly result: LabResult | null;
  /** The controls, set as a person would (the sliders' values in the core's units). */
  choose(kind: 'window' | 'global-window' | 'linear' | 'performer' | 'low-rank', knobs?: { window?: number; global?: number; features?: number; rank?: number }): void;
  whenIdle(): Promise<void>; // the lab's requests answered and drawn
}

/** What the tests read of the circuit tools: the attribution and the patching shown last. */
export interface CircuitsHook {
  readonly attribution: AttributionReply | null;
  readonly patch: PatchReply | null;
  whenIdle(): Promise<void>;
}

/** What the tests read of an encoder's tasks (window.__glassbox.encoder): what the page shows now. */
export interface EncoderHook {
  readonly fillMask: FillMaskResult | null;
  readonly similarity: { texts: string[]; ids: number[][]; embeddings: number[][]; similarity: number[][]; pooling: string } | null;
  /** The attention card's text: its ids, the batch's padded width, and every head's matrices as arrays. */
  readonly attention: { tokens: number[]; length: number; stride: number; texts: number; index: number; layers: number; heads: number; matrix: number[]; roles: string[] } | null;
  whenIdle(): Promise<void>; // the typed texts answered and drawn
}

/** What the tests read of the training lab (window.__glassbox.train): the run as drawn. */
export interface TrainHook {
  readonly record: TrainRecord | null;
  whenIdle(): Promise<void>; // no step in flight
}

export interface TestHook {
  readonly formats: string[]; // the model formats the engine reads
  readonly samplerDefaults: SamplerSettings | null; // the engine's, as the worker sent them
  readonly build: string | null; // the engine's build description
  readonly info: ModelInfo | null;
  readonly modelLabel: string | null;
  readonly loads: number;
  readonly failedLoads: number;
  readonly hubRefreshes: number; // how often the hub catalog re-read what the browser keeps (after each load and delete)
  readonly generations: number;
  readonly last: GenerationRecord | null;
  readonly inside: InsideHook;
  readonly seeInside: SeeInsideHook;
  readonly encoder: EncoderHook;
  readonly lab: LabHook;
  readonly flow: { readonly residualNorms: ResidualNorms | null; readonly neurons: NeuronsReply | null; whenIdle(): Promise<void> };
  readonly circuits: CircuitsHook;
  readonly train: TrainHook;
  whenLoaded(count?: number): Promise<ModelInfo>;
  whenIdle(): Promise<GenerationRecord | null>;
  whenAttentionDrawn(): Promise<void>;
  attention(layer: number, head: number): Promise<{ begin: number; size: number; total: number; heads: number; matrix: number[]; stats: number[]; firstVisible: number[]; firstKept: number }>;
  memory(): Promise<MemoryReport>;
}

/** What the hook asks the page for, beyond the store. */
export interface HookSources {
  readAttention(layer: number, head: number): Promise<AttentionTrace>;
  attentionDrawn(): Promise<void>;
  readMemory(): Promise<MemoryReport>;
  insideIdle(): Promise<void>; // the model inspector's requests answered and drawn
  seeInsideIdle(): Promise<void>; // the step inspector's requests answered
  rope(): RopePicture | null; // the positional-encoding view's picture
  headViewQuery(): number;
  encoderIdle(): Promise<void>; // the encoder's tasks answered and drawn
  labIdle(): Promise<void>;
  flowIdle(): Promise<void>;
  circuits: CircuitsHook;
  labChoose: LabHook['choose'];
  train: TrainHook;
}

type Waiter = { test: (state: Readonly<PageState>) => boolean; resolve: () => void };

export function installTestHook(store: PageStore, sources: HookSources): TestHook {
  const waiters: Waiter[] = [];
  store.subscribe((state) => {
    for (const waiter of [...waiters]) {
      if (waiter.test(state)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  });
  function until(test: Waiter['test']): Promise<void> {
    if (test(store.state)) return Promise.resolve();
    return new Promise((resolve) => waiters.push({ test, resolve }));
  }
  const state = () => store.state;

  const inside: InsideHook = {
    get batch() { return state().heads; },
    get measurement() { return state().measurement; },
    get ablation() { return state().ablation; },
    get ablationActive() { return state().ablationActive; },
    get anatomy() { return state().anatomy; },
    get flops() { return state().flops; },
    rope: () => sources.rope(),
    get headViewQuery() { return sources.headViewQuery(); },
    whenIdle: () => sources.insideIdle(),
  };

  const seeInside: SeeInsideHook = {
    get position() { return positionOf(state().selection); },
    get sequence() { return [...state().sequence]; },
    get promptLength() { return state().selection.promptLength; },
    get steps() {
      return [...state().steps.values()].sort((a, b) => a.position - b.position).map((s) => ({ position: s.position, chosen: s.chosen, pipeline: s.pipeline }));
    },
    get detail() { return state().detail; },
    get lens() { return state().lens; },
    get exported() { return state().exported; },
    whenIdle: () => sources.seeInsideIdle(),
  };

  const encoder: EncoderHook = {
    get fillMask() { return state().fillMask; },
    get similarity() {
      const s: SimilarityResult | null = state().similarity;
      return s && { texts: s.texts, ids: s.ids, embeddings: s.embeddings.map((e) => Array.from(e)), similarity: s.similarity, pooling: s.pooling };
    },
    get attention() {
      const a = state().encoderAttention;
      return (
        a && {
          tokens: Array.from(a.tokens),
          length: a.length,
          stride: a.stride,
          texts: a.texts,
          index: a.index,
          layers: a.layers,
          heads: a.heads,
          matrix: Array.from(a.matrix),
          roles: a.headReports.map((h) => h.role),
        }
      );
    },
    whenIdle: () => sources.encoderIdle(),
  };

  const lab: LabHook = {
    get result() { return state().lab; },
    choose: (kind, knobs = {}) => sources.labChoose(kind, knobs),
    whenIdle: () => sources.labIdle(),
  };

  const hook: TestHook = {
    get formats() { return state().engine?.formats ?? []; },
    get samplerDefaults() { return state().engine?.samplerDefaults ?? null; },
    get build() { return state().engine?.build ?? null; },
    get info() { return state().model?.info ?? null; },
    get modelLabel() { return state().model?.label ?? null; },
    get loads() { return state().loads; },
    get failedLoads() { return state().failedLoads; },
    get hubRefreshes() { return state().hubRefreshes; },
    get generations() { return state().generations; },
    get last() { return state().generation; },
    inside,
    seeInside,
    encoder,
    lab,
    flow: {
      get residualNorms() { return state().residualNorms; },
      get neurons() { return state().neurons; },
      whenIdle: () => sources.flowIdle(),
    },
    circuits: sources.circuits,
    train: sources.train,
    whenLoaded(count = 1) {
      return until((s) => s.loads >= count).then(() => state().model!.info);
    },
    whenIdle() {
      return until((s) => !s.generation?.running).then(() => state().generation);
    },
    whenAttentionDrawn: () => sources.attentionDrawn(),
    memory: () => sources.readMemory(),
    async attention(layer, head) {
      const trace = await sources.readAttention(layer, head);
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
  (window as unknown as { __glassbox: TestHook }).__glassbox = hook;
  return hook;
}
