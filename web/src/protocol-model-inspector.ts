// The messages of the model inspector's views (model view, head view, head statistics, ablation,
// positional encodings, anatomy) between the page and the worker. protocol.ts adds them to its unions.
import type { AblationChange, HeadMeasurement, HeadRoleThresholds, ModelAnatomy, PositionInfo, TokenFlops } from '@glassbox/engine';

export type { AblationChange, HeadMeasurement, HeadReport, HeadRole, HeadRoleThresholds, ModelAnatomy, PositionInfo, TokenFlops } from '@glassbox/engine';

/**
 * Every head of every layer over one window of positions (the newest, or around a chosen one), in one message: what the model view's
 * thumbnails and the head view draw. Indices into `matrix`, `ids` and `pieces` are relative to `begin`.
 */
export interface AttentionBatch {
  layers: number;
  heads: number;
  begin: number;
  size: number;
  total: number;
  matrix: Float32Array; // [layer][head][query][key], size × size each, zero above the diagonal
  stats: Float32Array; // [layer][head][3]: entropy (bits), sink, previous-token, over the window's rows
  firstVisible: Int32Array; // [layer][query]: the first position each row sees (sliding-window layers)
  ids: number[];
  pieces: Uint8Array[];
  scaled: boolean; // read while an ablation was on
}

/** RoPE made visible for one pair of vectors: their dot products at every pair of positions. */
export interface RopePicture {
  positions: number;
  q: Float32Array;
  k: Float32Array;
  dots: Float32Array; // [m][n] = R(m) q · R(n) k
  angles: Float64Array; // the angle of every pair at `anglePosition`
  anglePosition: number;
  source: RopeSource;
}

export type RopeSource = { kind: 'random'; seed: number } | { kind: 'query'; layer: number; head: number; position: number };

export interface ModelInspectorInfo {
  positions: PositionInfo;
  anatomy: ModelAnatomy;
  thresholds: HeadRoleThresholds;
}

export type ModelInspectorRequest =
  | { type: 'attention-batch'; req: number; window: number; around?: number } // around: a position the window holds (default: the newest)
  | { type: 'measure-heads'; req: number; prompt: string }
  | { type: 'ablate'; req: number; scales: number[]; meanHeads?: number[]; position?: number } // meanHeads: replaced by their mean; position: where it is measured (default: the last)
  | { type: 'clear-ablation'; req: number }
  | { type: 'inside-info'; req: number }
  | { type: 'flops'; req: number; sequenceLength: number }
  | { type: 'sinusoidal'; req: number; positions: number; dim: number }
  | { type: 'rope'; req: number; positions: number; anglePosition: number; source: RopeSource };

export type ModelInspectorEvent = { type: 'measure-progress'; req: number; completed: number; total: number };

/** Each request's reply: the one place a request is paired with what answers it (protocol.ts joins them). */
export interface ModelInspectorReplies {
  'attention-batch': AttentionBatch;
  'measure-heads': MeasureResult; // progress arrives meanwhile as ModelInspectorEvent
  ablate: AblationResult;
  'clear-ablation': boolean;
  'inside-info': ModelInspectorInfo;
  flops: TokenFlops;
  sinusoidal: Float32Array;
  rope: RopePicture;
}

/** The request types above, as a value (the worker dispatches on it); naming each once keeps the list whole. */
const modelInspectorKinds: Record<keyof ModelInspectorReplies, true> = { 'attention-batch': true, 'measure-heads': true, ablate: true, 'clear-ablation': true, 'inside-info': true, flops: true, sinusoidal: true, rope: true };
export const isModelInspectorRequest = (type: string): type is keyof ModelInspectorReplies => Object.hasOwn(modelInspectorKinds, type);

export interface MeasureResult extends HeadMeasurement {
  tokens: number; // how many tokens were measured
  ms: number;
}

/** An ablation's effect, with the two top tokens' vocabulary pieces. */
export interface AblationResult extends AblationChange {
  pieceBefore: Uint8Array;
  pieceAfter: Uint8Array;
  pieces: Uint8Array[]; // of the positions compared, comparedFrom on
}

export type { TokenFlops as FlopsResult };
