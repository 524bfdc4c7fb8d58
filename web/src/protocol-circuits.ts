// The messages of the circuit tools (direct logit attribution at a step, activation patching between two
// prompts) between the page and the worker. protocol.ts adds them to its unions. Patching reports progress
// as 'measure-progress' events (completed, total) and stops at a 'patch-cancel'.
import type { LogitAttributionResult } from '@glassbox/engine';

export type { LogitAttributionResult };

/** A logit split into parts, with the pieces of the token (and of the baseline token of a difference). */
export interface AttributionReply extends LogitAttributionResult {
  tokenPiece: Uint8Array;
  baselinePiece: Uint8Array | null;
}

/** Activation patching's answer, with the two prompts' tokens and what the run took. */
export interface PatchReply {
  cleanIds: number[];
  corruptIds: number[];
  cleanPieces: Uint8Array[];
  corruptPieces: Uint8Array[];
  target: number;
  targetPiece: Uint8Array;
  metricClean: number;
  metricCorrupt: number;
  layers: number;
  heads: number;
  positions: number;
  residual: Float64Array; // [(layers + 1)][positions]: effect of the stream entering layer l at p
  headEffects: Float64Array; // [layers][heads]
  runs: number;
  ms: number;
}

export type CircuitsRequest =
  | { type: 'logit-attribution'; req: number; position: number; token: number; baseline: number }
  | { type: 'patch'; req: number; clean: string; corrupt: string; target: string }
  | { type: 'patch-cancel' };

/** Each request's reply (protocol.ts joins them). */
export interface CircuitsReplies {
  'logit-attribution': AttributionReply;
  patch: PatchReply; // progress arrives meanwhile as 'measure-progress'
}

const circuitsKinds: Record<CircuitsRequest['type'], true> = { 'logit-attribution': true, patch: true, 'patch-cancel': true };
export const isCircuitsRequest = (type: string): type is CircuitsRequest['type'] => Object.hasOwn(circuitsKinds, type);
