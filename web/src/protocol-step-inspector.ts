// The messages of the step inspector's views (the sampling pipeline, attention step by step, the logit
// lens, the inspection document) between the page and the worker. protocol.ts adds them to its unions.
import type { AttentionDetail, AttentionLab, NeuronReport, PipelineToken, SamplerSettings, SamplingPipeline } from '@glassbox/engine';

export type { AttentionDetail, PipelineToken, SamplingPipeline };

/** The sampler's pipeline at one step, as the token event carries it: each candidate with its piece. */
export interface StepPipeline extends Omit<SamplingPipeline, 'tokens'> {
  tokens: (PipelineToken & { piece: Uint8Array })[];
  position: number; // the query position whose logits the token was drawn from
}

/** Attention step by step (the engine's AttentionDetail), with the keys' pieces and the sequence's length. */
export interface StepByStep extends AttentionDetail {
  pieces: Uint8Array[]; // of keys 0..query
  total: number; // positions read: keys query + 1 .. total - 1 are masked for this query
}

/** The logit lens over a window of positions: [layer][position - begin] (layer 0: the embedding). */
export interface LensWindow {
  layers: number; // n_layers + 1: the last row is the model's own prediction
  begin: number;
  size: number;
  ids: number[];
  probabilities: number[];
  pieces: Uint8Array[]; // of `ids`
  inputIds: number[]; // the tokens at the window's positions
  inputPieces: Uint8Array[];
}

/** The residual stream's length entering each layer (and leaving the last) over a window of positions. */
export interface ResidualNorms {
  layers: number; // n_layers + 1 rows: the last is the stream leaving the last layer
  begin: number;
  size: number;
  norms: Float32Array; // [row][position - begin]
  pieces: Uint8Array[]; // of the window's tokens
}

/** A layer's most active neurons at the current step, with the pieces of the text they were read in. */
export interface NeuronsReply extends NeuronReport {
  pieces: Uint8Array[]; // of the text's tokens
}

/** What the attention lab asks: `ids` up to and including the step, read with exact attention and `variant`. */
export interface LabQuery {
  ids: number[];
  variant: string; // the core's spelling: window:8, global-window:1,8, linear, performer:64, low-rank:4
  layer: number;
  head: number;
  continueTokens: number;
  comparedPositions: number;
}

/** The attention lab's answer (the engine's AttentionLab) with the pieces of every token it names. */
export interface LabResult extends AttentionLab {
  query: LabQuery;
  pieces: Uint8Array[]; // of query.ids
  exactTopPieces: Uint8Array[];
  variantTopPieces: Uint8Array[];
  exactContinuationPieces: Uint8Array[];
  variantContinuationPieces: Uint8Array[];
  ms: number; // what the worker took
}

export type StepInspectorRequest =
  | { type: 'attention-detail'; req: number; layer: number; head: number; query: number }
  | { type: 'logit-lens'; req: number; window: number; end: number }
  | { type: 'inspect-json'; req: number; prompt: string; sampler: SamplerSettings; steps: number }
  | ({ type: 'attention-lab'; req: number } & LabQuery)
  | { type: 'residual-norms'; req: number; window: number; end: number }
  | { type: 'neurons'; req: number; ids: number[]; layer: number; position: number; k: number };

/** Each request's reply: the one place a request is paired with what answers it (protocol.ts joins them). */
export interface StepInspectorReplies {
  'attention-detail': StepByStep;
  'logit-lens': LensWindow;
  'inspect-json': string; // the engine's inspection document
  'attention-lab': LabResult;
  'residual-norms': ResidualNorms;
  neurons: NeuronsReply;
}

/** The request types above, as a value (the worker dispatches on it); naming each once keeps the list whole. */
const stepInspectorKinds: Record<keyof StepInspectorReplies, true> = { 'attention-detail': true, 'logit-lens': true, 'inspect-json': true, 'attention-lab': true, 'residual-norms': true, neurons: true };
export const isStepInspectorRequest = (type: string): type is keyof StepInspectorReplies => Object.hasOwn(stepInspectorKinds, type);
