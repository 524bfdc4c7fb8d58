// The messages between the page (main thread, draws only) and the Web Worker that owns the engine.
// Requests carry a `req` number answered by exactly one `reply`. A generation is a stream: `started`, then
// one `token` per step, then `done`. The worker produces token n+1 only after the page has acknowledged
// token n (`ack`), so the page is never flooded and a Stop lands within one token.
import type { ModelInfo } from '@engine/glue';

export type { ModelInfo };

export interface SamplerSettings {
  temperature: number; // 0 = greedy
  topK: number; // 0 = off
  topP: number; // 1 = off
  seed: number;
}

/** Where a model comes from: URLs (the catalog, or typed in) or files the user picked or dropped. */
export type ModelSource =
  | { kind: 'url'; label: string; format?: string; model: string; tokenizer?: string }
  | { kind: 'files'; label: string; model: File; tokenizer?: File };

export interface TokenSpan {
  id: number;
  begin: number; // byte span in the UTF-8 input
  end: number;
  piece: Uint8Array; // the vocabulary piece's bytes
}

export interface TopToken {
  id: number;
  logit: number;
  probability: number;
  piece: Uint8Array;
}

export interface AttentionTrace {
  layer: number;
  head: number; // -1: all heads, matrix is [heads][size][size]
  heads: number; // how many matrices `matrix` holds
  size: number;
  matrix: Float32Array; // row-major [query][key], zero above the diagonal
  ids: number[]; // the traced sequence's token ids (length >= size)
  pieces: Uint8Array[];
  readMs: number; // how long the worker took to read it out of the engine
}

/** An error explained for a person: a headline in plain words and the engine's own message. */
export interface ErrorReport {
  title: string;
  detail?: string;
}

export type DoneReason = 'length' | 'end-token' | 'context' | 'stopped' | 'error';

export type ToWorker =
  | { type: 'load'; req: number; source: ModelSource }
  | { type: 'tokenize'; req: number; text: string }
  | { type: 'attention'; req: number; layer: number; head: number }
  | { type: 'generate'; gen: number; prompt: string; sampler: SamplerSettings; maxTokens: number; topK: number }
  | { type: 'ack'; gen: number; index: number }
  | { type: 'stop'; gen: number };

export type FromWorker =
  | { type: 'ready'; formats: string[] }
  | { type: 'fatal'; error: ErrorReport }
  | { type: 'progress'; req: number; file: 'model' | 'tokenizer'; name: string; loaded: number; total: number | null }
  | { type: 'reply'; req: number; ok: true; value: unknown }
  | { type: 'reply'; req: number; ok: false; error: ErrorReport }
  | { type: 'started'; gen: number; promptIds: number[]; promptPieces: Uint8Array[] }
  | {
      type: 'token';
      gen: number;
      index: number; // 0-based count of generated tokens
      id: number;
      bytes: Uint8Array; // the token's text bytes (may be part of a UTF-8 character)
      piece: Uint8Array;
      end: boolean; // an end-of-text token, or the context is full: nothing follows
      top: TopToken[]; // the distribution this token was drawn from
      stepMs: number;
    }
  | { type: 'done'; gen: number; reason: DoneReason; count: number; elapsedMs: number; error?: ErrorReport };

export interface LoadResult {
  label: string;
  info: ModelInfo;
}
