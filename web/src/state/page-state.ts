// The page's one state: the engine, the model, the generation, its steps, the trace and the current
// selection, plus what the inspection views last read from the worker. main.ts creates the store; the
// page's modules set it and subscribe to it; the test hook (test-hook.ts) only reads it.
import type { EncoderAttentionResult, FillMaskResult, SimilarityResult } from '../protocol-encoder';
import type { AblationResult, AttentionBatch, FlopsResult, ModelInspectorInfo, MeasureResult } from '../protocol-model-inspector';
import type { LabResult, LensWindow, NeuronsReply, ResidualNorms, StepByStep, StepPipeline } from '../protocol-step-inspector';
import type { DoneReason, EngineReady, ErrorReport, LoadResult, ModelSource, SamplerSettings } from '../protocol';
import type { StepDistribution } from '../views/next-token';
import { Store } from './store';

/** One generation as the page showed it. */
export interface GenerationRecord {
  prompt: string;
  promptIds: number[];
  ids: number[]; // generated ids in order, an end-of-text token included
  text: string; // prompt + generated text, as shown
  running: boolean; // the page's one "generating" flag: true from Generate until the worker's `done`
  engineMs: number; // time the worker spent in forward passes and sampling
  reason: DoneReason | null;
  error: ErrorReport | null; // what the page showed when it ended with an error (its engine code included)
  tokensWhenStopClicked: number | null; // tokens shown when Stop was clicked
}

/** One generated token's step: the distribution it was drawn from, at `position`. */
export interface StepRecord extends StepDistribution {
  position: number;
  pipeline: StepPipeline | null;
}

/**
 * The current selection: a position of the sequence every view shows (ui/current-step.ts reads and moves it).
 * `selected` is -1 while none is picked: the views then follow `newest`.
 */
export interface Selection {
  selected: number;
  last: number; // positions 0 .. last can be selected (prompt and generated tokens)
  newest: number; // the newest position the model has read
  promptLength: number; // tokens of the prompt (BOS included)
}

export interface PageState {
  engine: EngineReady | null; // what the worker said once the engine ran
  model: LoadResult | null; // the model loaded, kept while another one loads or fails to
  modelSource: ModelSource | null;
  loading: boolean; // a model is on its way: Generate and Step wait for it (or for Cancel)
  loads: number; // models loaded so far
  failedLoads: number;
  hubRefreshes: number; // how often the hub catalog re-read what the browser keeps
  generation: GenerationRecord | null; // the newest generation, running or ended
  generations: number;
  sampler: SamplerSettings | null; // the sampler `steps` were drawn with
  sequence: number[]; // the prompt's ids and the generated ids that `steps` belong to
  steps: ReadonlyMap<number, StepRecord>; // by position; a Step keeps those of the text it continues
  traced: number; // positions the engine has read into its trace (the newest token is read with the next step)
  selection: Selection;
  // What the inspection views last read from the worker.
  heads: AttentionBatch | null; // every head over the newest window (model view, head view)
  measurement: MeasureResult | null;
  ablation: AblationResult | null; // the last ablation's effect
  ablationActive: boolean;
  anatomy: ModelInspectorInfo['anatomy'] | null;
  flops: FlopsResult | null;
  detail: StepByStep | null; // attention step by step at the selection
  lens: LensWindow | null;
  lab: LabResult | null; // the attention lab's comparison at the selection
  residualNorms: ResidualNorms | null; // the flow card's stream lengths around the selection
  neurons: NeuronsReply | null; // the flow card's neurons at the selection
  exported: string | null; // the last inspection document exported
  // An encoder's tasks (encoder-page.ts): what they last showed.
  fillMask: FillMaskResult | null;
  similarity: SimilarityResult | null;
  encoderAttention: EncoderAttentionResult | null; // the attention card's text
}

export type PageStore = Store<PageState>;

/** Whether a generation is streaming. */
export const isGenerating = (state: Readonly<PageState>) => state.generation?.running === true;

export function createPageStore(): PageStore {
  return new Store<PageState>({
    engine: null,
    model: null,
    modelSource: null,
    loading: false,
    loads: 0,
    failedLoads: 0,
    hubRefreshes: 0,
    generation: null,
    generations: 0,
    sampler: null,
    sequence: [],
    steps: new Map(),
    traced: 0,
    selection: { selected: -1, last: -1, newest: -1, promptLength: 0 },
    heads: null,
    measurement: null,
    ablation: null,
    ablationActive: false,
    anatomy: null,
    flops: null,
    detail: null,
    lens: null,
    lab: null,
    residualNorms: null,
    neurons: null,
    exported: null,
    fillMask: null,
    similarity: null,
    encoderAttention: null,
  });
}
