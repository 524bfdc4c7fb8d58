// Types of the glassbox WebAssembly module's JavaScript API (engine.js). README.md beside it has a tour and an
// example. Every method that can fail throws a GlassboxError whose `code` says what went wrong; the messages
// are for people and may change, so branch on the code, never on the message.

/**
 * The core's ErrorCode names (core/include/glassbox/error.hpp). `errorCodes()` lists the same at run time;
 * tests/wasm/engine.test.mjs checks that the two agree.
 */
export type ErrorCode =
  | 'io' // a transfer or file could not be read or written
  | 'not-a-model' // bytes that are no model format glassbox reads (an empty file too)
  | 'not-a-tokenizer' // bytes that are no tokenizer format glassbox reads
  | 'truncated' // the file ends before what its header announces
  | 'malformed' // a field breaks its format's rules or the engine's bounds
  | 'unsupported-type' // an element (quantization) type the engine cannot compute
  | 'unsupported-architecture' // a model family the engine does not run
  | 'tokenizer-needed' // a model without its own vocabulary was given no tokenizer
  | 'vocab-mismatch' // the tokenizer does not fit the model
  | 'prompt-empty' // no token to start from
  | 'prompt-too-long' // more prompt tokens than the context holds
  | 'context-full' // every position of the session is used
  | 'out-of-memory' // the WebAssembly heap cannot hold what is asked
  | 'bad-argument' // a setting or argument outside its range
  | 'invalid-state' // a call out of order (no model loaded, step() before start())
  | 'not-recorded'; // inspection data the trace did not keep (tracing off, or dropped by its memory budget)

/** Why a generation ended (the core's StopReason names). */
export type StopReason =
  | 'end-of-text' // the model sampled an end-of-text token (it is the last token; its bytes are empty)
  | 'context-full' // the last sampled token landed on the context's last position
  | 'length' // the maxTokens or maxSteps budget given to start() is used up
  | 'stopped'; // stop() was called

/** Thrown by every engine method that can fail. */
export class GlassboxError extends Error {
  readonly code: ErrorCode;
  constructor(message: string, code: ErrorCode);
}

/** Upload slot of the model file. */
export const MODEL_SLOT: 0;
/** Upload slot of a separate tokenizer file (llama2.c checkpoints need one; GGUF files carry their own). */
export const TOKENIZER_SLOT: 1;

export interface SamplerSettings {
  temperature: number; // 0: greedy (always the most likely token)
  topK: number; // keep the k most likely tokens; 0: off
  topP: number; // keep the most likely tokens whose probabilities add up to p; 1: off
  seed: number; // whole number, 0 to 2^53 - 1
}

export interface GenerationLimits {
  maxTokens?: number; // tokens to sample at most; 0 or absent: until the context is full
  maxSteps?: number; // forward passes in all, prompt included (llama2.c's --steps); 0 or absent: no limit
}

export interface ModelInfo {
  architecture: string; // "llama", "gpt2", "qwen2", ...
  dim: number;
  hiddenDim: number;
  layers: number;
  heads: number;
  kvHeads: number;
  headDim: number;
  vocabSize: number;
  maxSeqLen: number; // what the model was trained for
  contextLength: number; // positions the session holds (prompt and generated tokens together)
  norm: string;
  position: string;
  activation: string;
  gatedFfn: boolean;
  tiedEmbeddings: boolean;
  parameters: number;
  weightBytes: number;
  bosId: number; // -1: none
  eosId: number; // -1: none
  engine: string; // buildDescription()
}

/** One token of a text: its id, the byte span [begin, end) of the UTF-8 input it covers, its vocabulary piece. */
export interface TokenSpan {
  id: number;
  begin: number;
  end: number;
  piece: Uint8Array;
}

/** One sampled token. */
export type GeneratedToken = {
  id: number;
  /** The bytes it adds to the text (possibly part of a UTF-8 character: decode with a streaming TextDecoder). */
  bytes: Uint8Array;
  /** The position whose next-token distribution it was drawn from (it lands at position + 1). */
  position: number;
} & (
  | { end: false; reason: null } // more tokens follow: call step() again
  | { end: true; reason: StopReason } // the last token of the generation, and why it ended
);

export interface TopToken {
  id: number;
  logit: number;
  probability: number; // softmax of the logits at temperature 1, over the whole vocabulary
}

export interface AttentionMatrix {
  begin: number; // the window's first position
  size: number; // positions in the window: begin .. begin + size - 1
  matrix: Float32Array; // row-major [query][key] (size × size), or [head][query][key] for head -1; zero above the diagonal
  /** Per head (in the order of `matrix`): mean entropy in bits, sink weight, previous-token weight, over the window's rows (each row's full keys 0..query). */
  stats: Float32Array;
}

/** What the inspection trace (the residual stream per layer and position) holds and may hold. */
export interface TraceInfo {
  positions: number; // positions computed
  firstKept: number; // the oldest position whose attention can still be recomputed
  bytesPerPosition: number;
  bytesHeld: number;
  budgetBytes: number; // 0: no cap
  capacityPositions: number; // how many positions fit the budget; -1: no cap
}

export interface Upload {
  /** Copies a chunk into the reserved buffer. Throws `io` when more bytes come than were announced. */
  write(chunk: Uint8Array): void;
  readonly written: number;
  /** Throws `truncated` unless exactly the announced size arrived. */
  finish(): void;
}

/** The Emscripten module factory: glassbox-engine.mjs's default export. */
export type ModuleFactory = (options?: Record<string, unknown>) => Promise<unknown>;

/**
 * One model, its tokenizer and one session with an attention trace. Not thread-safe: use it from one
 * thread (a Web Worker, so the page stays responsive while it computes).
 */
export class GlassboxEngine {
  /**
   * Instantiates the module and an engine. `moduleOptions` go to Emscripten: in a browser
   * `{locateFile: (file) => wasmUrl}`, under Node `{wasmBinary: bytes}`.
   */
  static create(createModule: ModuleFactory, moduleOptions?: Record<string, unknown>): Promise<GlassboxEngine>;

  // --- the build ---

  /** The engine's release, e.g. "0.1.0" (from CMake's project()). */
  version(): string;
  /** For example "glassbox 0.1.0, wasm-simd128 (xsimd sse4.1) kernels". */
  buildDescription(): string;
  /** The core's sampler defaults: what setSampler() uses for the fields it is not given. */
  samplerDefaults(): SamplerSettings;
  /** Every ErrorCode name, in the core's order. */
  errorCodes(): ErrorCode[];
  /** The model formats this build reads, e.g. ["llama2c", "gguf"]. */
  formats(): string[];

  // --- loading ---

  /**
   * Reserves `size` bytes in the WebAssembly heap for one file and returns a writer that copies chunks
   * straight in (no second copy in JavaScript). Errors: `not-a-model` / `not-a-tokenizer` (the file is
   * empty), `out-of-memory` (the heap cannot grow that far), `bad-argument` (no such slot).
   */
  beginUpload(slot: number, size: number, name: string): Upload;
  /** beginUpload, write and finish for bytes already in memory. */
  uploadBytes(slot: number, bytes: Uint8Array, name: string): void;
  /** Frees a slot's buffer (after a cancelled or failed download). */
  clearUpload(slot: number): void;
  /**
   * Loads the uploaded model, and the tokenizer when `tokenizerName` is given (else the model file's own),
   * taking over their buffers. On failure the model loaded before stays loaded and usable. Errors:
   * `invalid-state` (nothing uploaded), `not-a-model`, `not-a-tokenizer`, `tokenizer-needed`,
   * `vocab-mismatch`, `truncated`, `malformed`, `unsupported-type`, `unsupported-architecture`,
   * `out-of-memory`.
   */
  load(modelName: string, tokenizerName?: string): ModelInfo;
  /** The loaded model's shape. Errors: `invalid-state` (no model). */
  info(): ModelInfo;

  // --- tokens ---

  /** The tokens of `text`, BOS first when `addBos` and the vocabulary has one. Errors: `invalid-state`. */
  tokenize(text: string, addBos?: boolean): TokenSpan[];
  /** A token's vocabulary piece as bytes. Errors: `invalid-state`, `bad-argument` (id outside the vocabulary). */
  piece(id: number): Uint8Array;
  /** The pieces of many tokens (an empty array for an id outside the vocabulary). Errors: `invalid-state`. */
  pieces(ids: ArrayLike<number>): Uint8Array[];

  // --- generation ---

  /**
   * Sets what the next start() samples with; missing fields take samplerDefaults(). Returns the full
   * settings. Errors: `bad-argument` (negative temperature, top-p outside (0, 1], a fractional top-k or seed).
   */
  setSampler(settings?: Partial<SamplerSettings>): SamplerSettings;
  /**
   * Starts a generation: encodes the prompt (BOS first where the vocabulary asks), resets the session and
   * the sampler's random sequence (same seed, same text). Returns the prompt's ids. Errors: `invalid-state`
   * (no model), `prompt-empty`, `prompt-too-long` (more tokens than contextLength), `bad-argument` (limits).
   */
  start(prompt: string, limits?: GenerationLimits): Int32Array;
  /**
   * Computes one token (the first call also reads the prompt). Call until `end` is true. Errors:
   * `invalid-state` (before start(), or after the end).
   */
  step(): GeneratedToken;
  /** Ends the generation now; returns why it ended ("stopped" unless it had already ended), null if none began. */
  stop(): StopReason | null;
  /** Back to position 0 with no generation (clears the trace). */
  reset(): void;

  // --- inspection ---

  /** The ids whose attention is traced: the prompt and the generated tokens fed back so far. */
  sequence(): Int32Array;
  /**
   * One head's attention (head -1: every head of the layer) over the positions [begin, end) (by default every
   * kept position), recomputed from the residual trace; a copy. Errors: `invalid-state`, `bad-argument`,
   * `not-recorded` (a position older than the trace keeps).
   */
  attention(layer: number, head: number, begin?: number, end?: number): AttentionMatrix;
  /** What the inspection trace holds, and its memory budget. */
  traceInfo(): TraceInfo;
  /** The WebAssembly memory's size in bytes (it grows on demand and never shrinks). */
  memoryBytes(): number;
  /** The memory the engine lets its inspection trace take. */
  traceBudgetBytes(): number;
  /** The k most likely next tokens after the last step. Errors: `invalid-state` (nothing computed yet), `bad-argument`. */
  topTokens(k: number): TopToken[];
  /** Frees the engine (the module stays). */
  dispose(): void;
}
