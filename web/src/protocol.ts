// The messages between the page (main thread, draws only) and the Web Worker that owns the engine.
// Requests carry a `req` number answered by exactly one `reply`. A generation is a stream: `started`, then
// one `token` per step, then `done`. The worker produces token n+1 only after the page has acknowledged
// token n (`ack`), so the page is never flooded and a Stop lands within one token.
// The engine's own types (wasm/engine.d.ts) are used as they are, not restated.
import type { ErrorCode, ModelInfo, SamplerSettings, StopReason, ThreadChoice, TokenSpan, TopToken as EngineTopToken } from '@glassbox/engine';
import type { ChatRequest, ChatStarted, ChatSupport } from './protocol-chat';
import type { CircuitsReplies, CircuitsRequest } from './protocol-circuits';
import type { EncoderReplies, EncoderRequest } from './protocol-encoder';
import type { LengthCostReplies, LengthCostRequest } from './protocol-length-cost';
import type { ModelInspectorEvent, ModelInspectorReplies, ModelInspectorRequest } from './protocol-model-inspector';
import type { TrainReplies, TrainRequest } from './protocol-train';
import type { StepInspectorReplies, StepInspectorRequest, StepPipeline } from './protocol-step-inspector';

export type { ErrorCode, ModelInfo, SamplerSettings, StopReason, TokenSpan };

/**
 * Where a model comes from: URLs (the catalog, or typed in), the hub catalog, or files the user picked or dropped.
 * `tokenizerChosenBefore`: the tokenizer file was chosen in an earlier action (left in the tokenizer field),
 * not together with this model; the worker decides whether it goes with the model (worker/pairing.ts).
 */
export type ModelSource =
  | { kind: 'url'; label: string; format?: string; model: string; tokenizer?: string }
  | { kind: 'hub'; label: string; url: string; sha256?: string } // the hub catalog (hub/catalog.ts), kept in the browser
  | { kind: 'files'; label: string; model: File; tokenizer?: File; tokenizerChosenBefore?: boolean };

/** A candidate of the next-token distribution, with its vocabulary piece. */
export interface TopToken extends EngineTopToken {
  piece: Uint8Array;
}

/**
 * A window of the attention: positions begin .. begin + size - 1 of the `total` computed so far, recomputed
 * by the engine from its residual-stream trace. Indices into `matrix`, `ids` and `pieces` are relative to
 * `begin`.
 */
export interface AttentionTrace {
  layer: number;
  head: number; // -1: all heads, matrix is [heads][size][size]
  heads: number; // how many matrices `matrix` holds
  begin: number;
  size: number;
  total: number;
  matrix: Float32Array; // row-major [query][key], zero above the diagonal; keys before `begin` left out
  stats: Float32Array; // per head: mean entropy (bits), sink, previous-token weight over the window's full rows
  firstVisible: Int32Array; // per query row: the first position it may see (a sliding-window layer's window)
  ids: number[]; // the window's token ids
  pieces: Uint8Array[];
  firstKept: number; // the oldest position the trace still keeps
  bytesPerPosition: number; // the trace's memory per position
  budgetBytes: number; // what the trace may take in all
  readMs: number; // how long the worker took to read it out of the engine
}

/**
 * An error explained for a person: a headline in plain words (from the error's code), the engine's own
 * message as the detail, and what to do about it where there is something to say.
 */
export interface ErrorReport {
  title: string;
  detail?: string;
  advice?: string;
  code?: ErrorCode | PageErrorCode; // the engine's code, or the worker's own for what the engine never sees
}

/**
 * What went wrong before the engine saw the bytes (worker/explain.ts words them): the load was cancelled,
 * the browser is offline, the server gave no answer or an error status, or the bytes are a web page or
 * other text rather than a model; a hub download (worker/hub-cache.ts) whose SHA-256 is not the one stated,
 * a file larger than the engine takes, or a browser without the storage downloads are kept in.
 */
export type PageErrorCode = 'cancelled' | 'offline' | 'unreachable' | 'http-status' | 'web-page' | 'text-file' | 'checksum' | 'too-large' | 'no-storage' | 'storage-full';

/** What the browser keeps of a hub URL (worker/hub-cache.ts): a finished, checked copy, or the first `bytes`. */
export interface CachedState {
  bytes: number;
  complete: boolean;
}

/** The engine's memory: the whole WebAssembly memory, and what its inspection trace holds and may hold. */
export interface MemoryReport {
  wasmBytes: number;
  traceBytes: number;
  traceBudgetBytes: number;
}

/** Why a generation ended: the core's stop reason, or an error. */
export type DoneReason = StopReason | 'error';

/** What the worker tells the page once the engine runs. */
export interface EngineReady {
  formats: string[]; // the model formats this build reads
  samplerDefaults: SamplerSettings; // the core's defaults, the sampling controls' first values
  build: string; // e.g. "glassbox 0.1.0, wasm-simd128 (xsimd sse4.1) kernels"
  version: string; // e.g. "0.1.0"
  threaded: boolean; // the pthreads build (the page is cross-origin isolated), else the single-threaded one
  threads: number; // threads a model's session computes with (1 in the single-threaded build)
  largestUpload: number; // the largest model file the engine takes (more is more than the WebAssembly heap can hold)
}

export type ToWorker =
  | EncoderRequest // an encoder's tasks: fill-mask, sentence similarity (protocol-encoder.ts)
  | ModelInspectorRequest // the model inspector's requests (protocol-model-inspector.ts)
  | StepInspectorRequest // the step inspector's requests (protocol-step-inspector.ts)
  | CircuitsRequest // logit attribution and activation patching (protocol-circuits.ts)
  | LengthCostRequest // the anatomy's cost against length (protocol-length-cost.ts)
  | TrainRequest // the training lab (protocol-train.ts)
  | { type: 'load'; req: number; source: ModelSource }
  | { type: 'cancel-load' } // ends the load under way, if any: it answers with a 'cancelled' error
  | { type: 'tokenize'; req: number; text: string }
  | { type: 'attention'; req: number; layer: number; head: number }
  | { type: 'memory'; req: number }
  | { type: 'hub-cached'; req: number; urls: string[] } // what the browser keeps of each: Record<url, CachedState>
  | { type: 'hub-delete'; req: number; url: string }
  | { type: 'threads'; req: number; count: number; automatic: boolean } // the user's thread setting: auto, or `count` always
  | { type: 'generate'; gen: number; prompt: string; sampler: SamplerSettings; maxTokens: number; topK: number; chat?: ChatRequest; extend?: ExtendRun }
  | { type: 'ack'; gen: number; index: number }
  | { type: 'stop'; gen: number };

/**
 * A Step after a generation: continue the run whose ids (prompt and generated) are `ids`, of which the last
 * `generated` were generated, rather than start from the prompt text. The engine keeps the positions it
 * already read (startTokens); the new tokens are counted on from `generated`.
 */
export interface ExtendRun {
  ids: number[];
  generated: number;
}

export type FromWorker =
  | ModelInspectorEvent // measure-heads and patch progress (protocol-model-inspector.ts)
  | ({ type: 'ready' } & EngineReady)
  | { type: 'fatal'; error: ErrorReport }
  | { type: 'progress'; req: number; file: 'model' | 'tokenizer'; name: string; loaded: number; total: number | null }
  | { type: 'reply'; req: number; ok: true; value: unknown }
  | { type: 'reply'; req: number; ok: false; error: ErrorReport }
  | {
      type: 'started';
      gen: number;
      promptIds: number[];
      promptPieces: Uint8Array[];
      chat?: ChatStarted;
      // The threads the prompt's pass and each generated token's take, and why (the core's rule: glassbox/thread_choice.hpp).
      threads: { prompt: ThreadChoice; generation: ThreadChoice };
    }
  | {
      type: 'token';
      gen: number;
      index: number; // 0-based count of generated tokens
      id: number;
      bytes: Uint8Array; // the token's text bytes (may be part of a UTF-8 character)
      piece: Uint8Array;
      end: boolean; // the last token of the generation: nothing follows
      reason: StopReason | null; // with `end`, why ('end-of-text': this token ends the text and adds no bytes)
      top: TopToken[]; // the distribution this token was drawn from
      pipeline?: StepPipeline; // what the sampler did to it (protocol-step-inspector.ts), when topK > 0
      stepMs: number;
      threads: number; // what the token's forward pass ran on (the first one's also read the prompt)
    }
  | { type: 'done'; gen: number; reason: DoneReason; count: number; elapsedMs: number; error?: ErrorReport };

/** Each request's reply: the one place a request is paired with what answers it. */
export interface Replies extends EncoderReplies, ModelInspectorReplies, StepInspectorReplies, LengthCostReplies, CircuitsReplies, TrainReplies {
  load: LoadResult; // load progress arrives meanwhile as 'progress'
  tokenize: TokenSpan[];
  attention: AttentionTrace;
  memory: MemoryReport;
  'hub-cached': Record<string, CachedState>; // a URL the browser keeps nothing of is absent
  'hub-delete': null;
  threads: ThreadChoice | null; // a generated token's choice under the new setting; null: no decoder loaded yet
}

/** The requests: the messages to the worker that carry a `req` and are answered by one `reply`. */
export type RequestType = keyof Replies;
/** A request's fields besides its type and number. */
export type RequestFields<K extends RequestType> = Omit<Extract<ToWorker, { type: K }>, 'type' | 'req'>;
export type ReplyTo<K extends RequestType> = Replies[K];

/** Fails to compile while a request of ToWorker has no reply in Replies, or Replies names one ToWorker lacks. */
export type EveryRequestPaired = AssertNever<Exclude<Extract<ToWorker, { req: number }>['type'], RequestType> | Exclude<RequestType, ToWorker['type']>>;
type AssertNever<T extends never> = T;

/** The worker's answer to request `req` of type `kind`: the pairing above is checked where replies are made. */
export const replyTo = <K extends RequestType>(_kind: K, req: number, value: ReplyTo<K>): FromWorker => ({ type: 'reply', req, ok: true, value });

export interface LoadResult {
  label: string;
  info: ModelInfo;
  /** The tokenizer file loaded with the model; null: the model's own (GGUF). */
  tokenizer: { name: string; chosenBefore: boolean } | null;
  /** A tokenizer chosen before that was left out because the model carries its own. */
  setAside?: string;
  /** The model's chat template and special tokens (protocol-chat.ts); null when it has no template. */
  chat: ChatSupport | null;
}
