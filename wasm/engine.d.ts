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

/** Training settings (glassbox::TrainingSettings; missing ones take its defaults). */
export interface TrainingSettings {
  steps?: number;
  batch?: number;
  context?: number;
  learningRate?: number;
  warmup?: number;
  schedule?: 'cosine' | 'constant';
  weightDecay?: number;
  clip?: number;
  seed?: number;
}

export interface TrainingRun {
  steps: number;
  layers: number;
  heads: number;
  dim: number;
  context: number;
  parameters: number;
}

export interface TrainingStepReport {
  step: number;
  loss: number;
  learningRate: number;
  gradNorm: number;
  /** Each layer's gradient norm alone, before clipping. */
  layerGradNorms: number[];
  tokens: number;
  seconds: number;
}

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
  normPlacement: string; // "pre", "post" or "sandwich"
  finalNorm: boolean; // a norm on the stream leaving the last layer (Post-LN models often have none)
  qkNorm: boolean; // q and k normalized per head before RoPE
  slidingWindow: number; // keys a sliding-window layer sees (0: none)
  slidingLayers: boolean[]; // per layer: does it attend through the sliding window?
  parameters: number;
  weightBytes: number;
  bosId: number; // -1: none
  eosId: number; // -1: none
  engine: string; // buildDescription()
  threads: number; // threads the session computes with, as running now (1 in the single-threaded build)
  encoder: boolean; // an encoder (BERT): it reads whole texts; embed() and fillMask() instead of generation
  maskedLm: boolean; // an encoder saved with its masked-language-model head and a [MASK] token: fillMask() works
  pooling: string; // what the file asks for: "mean", "cls" or "none" (embed() then pools by the mean)
  normalizeEmbedding: boolean; // the file divides each embedding by its length
}

/** embed()'s result: every text through one padded batch, each pooled into one vector. */
export interface Embeddings {
  tokens: Int32Array[]; // each text's ids, [CLS] and [SEP] included
  embeddings: Float32Array[]; // one per text
  similarity: Float32Array[]; // [a][b]: the cosine of embeddings a and b (1 on the diagonal)
  pooling: 'mean' | 'cls'; // the pooling used
}

/** One candidate for a [MASK]: a token and its probability (softmax over the whole vocabulary). */
export interface MaskCandidate {
  id: number;
  piece: string; // the vocabulary's spelling (WordPiece: "##ing" continues a word)
  probability: number;
}

/** fillMask()'s result: the text's ids and, at each [MASK], the most likely tokens, most likely first. */
export interface FilledMasks {
  tokens: Int32Array;
  // While heads are switched off (setEncoderHeadScales): `candidates` are the ablated run's, `before` every
  // head's, `klBits` the KL of the two distributions in bits.
  masks: { position: number; candidates: MaskCandidate[]; before?: MaskCandidate[]; klBits?: number }[];
}

/** What one head of an encoder does over a text (the core's EncoderHeadReport): mean weights over its rows. */
export interface EncoderHeadReport {
  layer: number;
  head: number;
  role: string; // the engine's label: sink ([CLS]), previous-token, next-token, separator, punctuation, local, broad, mixed
  entropyBits: number;
  uniformEntropyBits: number; // what uniform attention over the same rows would give
  sink: number; // on the first token, [CLS]
  previousToken: number;
  nextToken: number;
  separator: number; // on [SEP]
  punctuation: number; // on tokens that are punctuation only
  local: number; // within two tokens either side, its own included
}

/** encoderAttention()'s result: one text of a padded batch, every head's full attention over it. */
export interface EncoderAttention {
  tokens: Int32Array; // the text's ids, [CLS] and [SEP] included
  length: number; // its tokens
  stride: number; // the batch's padded width: the longest text's tokens (rows/columns length..stride-1 are padding)
  texts: number; // texts in the batch
  layers: number;
  heads: number;
  matrix: Float32Array; // [layer][head][query][key], stride x stride per head; 0 in the padding
  headReports: EncoderHeadReport[]; // per head, layer by layer, measured over the text's own rows
}

/** The vocabulary's chat side (GGUF tokenizer.chat_template and the special tokens). */
export interface ChatInfo {
  template: string; // the chat template's Jinja source; "" when the model has none
  bosId: number; // -1: none
  eosId: number; // -1: none
  addsBos: boolean; // whether a prompt starts with BOS (the vocabulary's add_bos)
  endIds: Int32Array; // the tokens that end a generation (EOS, end of turn, ...), increasing
  specialIds: Int32Array; // the tokens tokenize(..., {parseSpecial: true}) reads by spelling, increasing
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
  /** Threads the step's forward pass ran on (the first step's also read the prompt): see threadChoice(). */
  threads: number;
} & (
  | { end: false; reason: null } // more tokens follow: call step() again
  | { end: true; reason: StopReason } // the last token of the generation, and why it ended
);

/** How many threads a pass uses and why (GlassboxEngine.threadChoice). */
export interface ThreadChoice {
  threads: number;
  why: string;
  /** The setting: auto up to `limit`, or `limit` for every pass. */
  automatic: boolean;
  limit: number;
  /** The threads the session started: the most any setting can use. */
  most: number;
}

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
  /** Per query row: the first key it may see (0, or where a sliding-window layer's window begins); keys before it are masked like the future. */
  firstVisible: Int32Array;
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

/**
 * How the engine computes. `threads` (default 1): threads per session. Only the threaded module
 * (glassbox-engine-threads.mjs, which needs a cross-origin isolated page: SharedArrayBuffer) runs more than
 * one; create() makes its pool of Web Workers to match (`pthreadPoolSize`, threads - 1).
 */
export interface EngineOptions {
  threads?: number;
}

/** The Emscripten module factory: glassbox-engine.mjs's (or glassbox-engine-threads.mjs's) default export. */
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
  static create(createModule: ModuleFactory, moduleOptions?: Record<string, unknown>, options?: EngineOptions): Promise<GlassboxEngine>;

  // --- the build ---

  /** The engine's release, e.g. "0.1.0" (from CMake's project()). */
  version(): string;
  /** For example "glassbox 0.1.0, wasm-simd128 (xsimd sse4.1) kernels". */
  buildDescription(): string;
  /** Whether the module is the pthreads build (glassbox-engine-threads), which can compute on several threads. */
  threaded(): boolean;
  /** The threads each loaded model's session asks for: `threads` of create() in the threaded build, else 1. */
  threads(): number;
  /**
   * The threads a forward pass of `tokens` tokens at the session's position uses under the thread setting,
   * and why in plain words: the core's rule (glassbox/thread_choice.hpp) unless a count was chosen.
   * Errors: `invalid-state` (no model, or an encoder).
   */
  threadChoice(tokens: number): ThreadChoice;
  /**
   * The thread setting, kept for later models too: `automatic` (default): each pass uses what pays for its
   * work, at most `count`; otherwise `count` for every pass. The results are the same bits either way.
   * Returns threadChoice(1) under it; null while no decoder is loaded (the setting waits for one).
   */
  setThreads(count: number, automatic: boolean): ThreadChoice | null;
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

  // --- an encoder's tasks ---

  /**
   * Sentence embeddings of `texts` and their cosine similarities, the numbers `glassbox embed --json` prints.
   * `pooling` '' (the default) pools as the file asks (else by the mean); `normalize` divides each by its
   * length, as does a file that asks for it. Errors: `invalid-state` (no model), `bad-argument` (a decoder;
   * no texts, an empty text, a text longer than the model's positions: refused, never truncated).
   */
  embed(texts: string[], options?: { pooling?: '' | 'mean' | 'cls'; normalize?: boolean }): Embeddings;
  /**
   * The `topK` (default 5) most likely tokens at each [MASK] written in `text`, the numbers `glassbox
   * fill-mask --json` prints. Errors: `invalid-state` (no model), `bad-argument` (a decoder; a model without
   * its MLM head; no [MASK] in the text; a text longer than the model's positions; topK < 1).
   */
  fillMask(text: string, topK?: number): FilledMasks;
  /**
   * Where every head looks in text `index` of `texts`, all of them encoded in one padded batch as embed()
   * encodes them (with `parseSpecial`, [MASK] written in a text is the mask token, as in fillMask()).
   * Errors: `invalid-state` (no model), `bad-argument` (a decoder; `index` outside the texts; the texts as
   * embed()).
   */
  encoderAttention(texts: string[], index?: number, options?: { parseSpecial?: boolean }): EncoderAttention;
  /**
   * Switches an encoder's heads off (0) or scales them: `scales[layer * heads + head]`, empty or all ones for
   * none. Every encoder task reads the ablated run from then on; fillMask() also gives each mask's candidates
   * with every head on and the KL between. Returns how many heads are not at 1. Errors: `invalid-state` (no
   * model), `bad-argument` (a decoder; the wrong length; a scale that is not finite: the ablation stays as it was).
   */
  setEncoderHeadScales(scales: ArrayLike<number>): number;

  // --- tokens ---

  /**
   * The tokens of `text`, BOS first when `addBos` and the vocabulary has one. With `parseSpecial` the
   * spellings of special tokens in the text ("<|im_start|>") become those tokens, as a rendered chat needs;
   * without it they are encoded as text. Errors: `invalid-state`.
   */
  tokenize(text: string, addBos?: boolean, options?: { parseSpecial?: boolean }): TokenSpan[];
  /** What a chat needs of the vocabulary. Errors: `invalid-state`. */
  chatInfo(): ChatInfo;
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
   * (no model), `bad-argument` (an encoder: use embed() or fillMask()), `prompt-empty`, `prompt-too-long` (more tokens than contextLength), `bad-argument` (limits).
   */
  start(prompt: string, limits?: GenerationLimits): Int32Array;
  /**
   * Computes one token (the first call also reads the prompt). Call until `end` is true. Errors:
   * `invalid-state` (before start(), or after the end).
   */
  step(): GeneratedToken;
  /**
   * Starts a conversation's next turn from token ids, as start() does, but keeps the positions the session
   * already ran when `ids` begins with them (the new rendering extends the conversation): `kept` says how
   * many. Then the sampler goes on with its random sequence (unless setSampler() changed the settings), so
   * extending a sampled run draws what one longer run would. Errors: as start().
   */
  startTokens(ids: ArrayLike<number>, limits?: GenerationLimits): { ids: Int32Array; kept: number };
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
  /** The largest model file the engine takes, in bytes: a larger one is more than the WebAssembly heap can hold. */
  largestUpload(): number;
  /** The memory the engine lets its inspection trace take. */
  traceBudgetBytes(): number;
  /** The k most likely next tokens after the last step. Errors: `invalid-state` (nothing computed yet), `bad-argument`. */
  topTokens(k: number): TopToken[];

  // --- see inside, part 2: head statistics and roles, ablation, positions, anatomy ---

  /**
   * Every head's statistics over `ids` (the core's measure_heads, in a session of its own: the generation's
   * is untouched), its induction score on a repeated random-token probe, effective rank and role. Errors:
   * `invalid-state`, `bad-argument` (no tokens, an id outside the vocabulary), `prompt-too-long`.
   */
  measureHeads(ids: ArrayLike<number>): HeadMeasurement;
  /** The same numbers one head per step(), so a worker can report progress and stay responsive. */
  beginMeasureHeads(ids: ArrayLike<number>): { total: number; step(): MeasureStep };
  /** The thresholds of the role labels and the definitions' constants (glassbox/head_roles.hpp). */
  headRoleThresholds(): HeadRoleThresholds;
  /**
   * What a file's first bytes plainly are when they are not the file expected (the core's rule,
   * glassbox/formats.hpp `foreign_bytes`): an empty file, a web page, a Git LFS pointer, or (for a model) any
   * text; null when they may be the file. Reads at most foreignBytesHead() bytes.
   */
  foreignBytes(head: Uint8Array, part: 'model' | 'tokenizer'): { kind: 'empty' | 'web-page' | 'git-lfs-pointer' | 'text'; description: string } | null;
  /** Whether a file's first bytes are GGUF's magic "GGUF" (a GGUF carries its own tokenizer). */
  isGguf(head: Uint8Array): boolean;
  /** How many leading bytes foreignBytes() and isGguf() read (the core's kForeignBytesHead). */
  foreignBytesHead(): number;
  /**
   * Scales every head by `scales[layer * heads + head]` (0: off, 1: as trained) in the generation's session,
   * and replaces the heads listed in `meanHeads` (indices of that table) by their mean output over the text
   * in the model as trained (mean ablation), and reads the traced tokens again, so attention and every later
   * generation show the ablated model until clearAblation(). Returns the change of the next-token
   * distribution at `position` (the logits after that token; default -1: the last) against the model without
   * ablation, and the KL at every position the trace keeps. Errors: `invalid-state` (nothing computed yet),
   * `bad-argument` (length, a non-finite scale, a head or position outside the model or the tokens read).
   */
  ablate(scales: ArrayLike<number>, position?: number, meanHeads?: ArrayLike<number>): AblationChange;
  /** Every head as trained again; the traced tokens are read again. Whether an ablation was on. */
  clearAblation(): boolean;
  /** The session's head scales (empty: none). */
  headScales(): Float32Array;
  /** How the loaded model encodes positions. */
  positionInfo(): PositionInfo;
  /** The sinusoidal code of positions 0..positions-1, `dim` values each, row-major. Errors: `bad-argument`. */
  sinusoidalTable(positions: number, dim: number): Float32Array;
  /** RoPE's angle (radians) for every pair at `position` in `layer` (a sliding-window layer turns its own way; default: a global layer). Errors: `bad-argument` (no RoPE). */
  ropeAngles(position: number, layer?: number): Float64Array;
  /** q·k with q rotated to m and k to n, [m][n] for m, n < positions. Errors: `bad-argument` (no RoPE, lengths). */
  ropeDotProducts(q: ArrayLike<number>, k: ArrayLike<number>, positions: number, layer?: number): Float32Array;
  /** One head's query at `position` before RoPE (head_dim values). Errors: `invalid-state`, `bad-argument`, `not-recorded`. */
  headQuery(layer: number, head: number, position: number): Float32Array;
  /** Parameters and bytes per component, bytes read per token. */
  anatomy(): ModelAnatomy;
  /** FLOPs of one token at position sequenceLength - 1, by part. */
  flopsPerToken(sequenceLength: number): TokenFlops;
  /**
   * A built-in synthetic task's text (glassbox/train.hpp: copy, counting, brackets), one line per sequence, in
   * the loaded model's vocabulary. Errors: `invalid-state` (no model), `bad-argument` (an unknown task,
   * lines or length out of range, too few words for copy).
   */
  syntheticTask(options?: { task?: string; lines?: number; length?: number; seed?: number; maxTokens?: number }): string;
  /**
   * Begins a training run (glassbox::Trainer) on one thread: from `config` (a training config's JSON, the
   * loaded model's tokenizer) or, with `config` '', from the loaded model's weights (fine-tuning); `data` is
   * one sequence per line. Errors: `invalid-state` (no model), `bad-argument` (settings, empty data, a line
   * past the context), `vocab-mismatch`, `unsupported-architecture`, `unsupported-type` (a quantized model).
   */
  trainBegin(config: string, data: string, settings?: TrainingSettings): TrainingRun;
  /** One step of the run. Errors: `invalid-state` (no run, all steps done), `bad-argument` (a NaN loss: the message names the step). */
  trainStep(): TrainingStepReport;
  /** The held-out loss (nats per token) of the run's weights as they are on `text` (one sequence per line). */
  trainHeldOut(text: string): number;
  /** Every head's induction score (layer-major) of the run's weights as they are, on the head statistics' probe. */
  trainInduction(): number[];
  /** The run's weights as they are, as an F32 GGUF file with the tokenizer (loads as a dropped file does). */
  trainGguf(name: string): Uint8Array;
  /** Ends the run (its weights are freed). */
  trainEnd(): void;
  /** Cost against length: the variants measured by default (exact, window:W, linear), their crossover n*, the context. */
  lengthCostPlan(): LengthCostPlan;
  /**
   * Measures `attention` (exact, window:W, linear, ...) at `length` tokens in a session of its own, on one
   * thread: prefill and per-token times (median of `repeat`, default 3), the session's memory, the formulas.
   * Errors: `invalid-state` (no model), `bad-argument` (a variant the model cannot take, a length past the context).
   */
  lengthCost(attention: string, length: number, repeat?: number): LengthCostPoint;
  /**
   * A layer's `k` (default 8) most active feed-forward neurons at `position` of `ids` (largest |activation|
   * first), and for each the `perNeuron` (default 3) positions of the text where it fires most
   * (glassbox/neurons.hpp). In a session of its own. Errors: `bad-argument` (a layer, position or id outside,
   * k < 1, an encoder), `prompt-too-long`.
   */
  topNeurons(ids: ArrayLike<number>, layer: number, position: number, k?: number, perNeuron?: number): NeuronReport;
  /**
   * Direct logit attribution (glassbox/logit_attribution.hpp): the logit of `token` at `position` split into
   * the embedding, each head, each feed-forward and the biases, which add up to it; with `baseline`, the
   * difference logit(token) − logit(baseline) so split. From the generation's trace. Errors: `invalid-state`,
   * `bad-argument` (a position not read, a token outside the vocabulary, a Post-LN model), `not-recorded`.
   */
  logitAttribution(position: number, token: number, baseline?: number): LogitAttributionResult;
  /**
   * Activation patching (glassbox/activation_patching.hpp) between two prompts of the same token length,
   * a few cells per step() so a worker stays responsive; a new job replaces one under way. Errors as
   * `glassbox patch`: `bad-argument` (lengths differ, naming both; a target outside the vocabulary; an
   * encoder), `prompt-empty`, `prompt-too-long`.
   */
  beginPatching(clean: ArrayLike<number>, corrupt: ArrayLike<number>, target?: number): PatchingPlan;
  /**
   * The attention lab (glassbox/attention_lab.hpp): `ids` (the tokens up to and including the step looked at)
   * read with exact attention and with `variant` (its spelling: exact, window:W, global-window:G,W, linear,
   * performer:M[:SEED], low-rank:R), in sessions of their own. Errors: `invalid-state` (no model),
   * `bad-argument` (a variant's spelling or range, a layer or head outside the model, an id outside the
   * vocabulary, a variant the model cannot take, an encoder), `prompt-too-long`.
   */
  attentionLab(ids: ArrayLike<number>, variant: string, options?: AttentionLabOptions): AttentionLab;
  /**
   * The sampler's pipeline over the distribution the newest token was drawn from, with the generation's own
   * settings: the `topN` (default 10) highest logits. Errors: `invalid-state` (nothing computed yet).
   */
  samplingPipeline(topN?: number): SamplingPipeline;
  /**
   * One head's attention at one query, every number of the formula as the forward pass computed it.
   * Errors: `invalid-state`, `bad-argument`, `not-recorded` (the query's residual was dropped).
   */
  attentionDetail(layer: number, head: number, query: number): AttentionDetail;
  /** The logit lens over positions [begin, end): each layer's `k` (default 1) most likely next tokens. */
  logitLens(begin: number, end: number, k?: number): LogitLens;
  /**
   * The residual stream's length |x| entering each layer and leaving the last, at positions [begin, end):
   * [(layers + 1)][end - begin]. Errors: `invalid-state`, `bad-argument` (a range outside what was read),
   * `not-recorded` (a position the trace dropped).
   */
  residualNorms(begin: number, end: number): Float32Array;
  /**
   * The inspection document of `glassbox inspect --json` for `prompt` and `steps` sampled tokens, with the
   * settings of setSampler() and the session's ablation, computed in a session of its own. Errors: those
   * of start(), `bad-argument` (over 256 tokens).
   */
  inspectJson(prompt: string, options?: { steps?: number; candidates?: number }): string;
  /** Frees the engine (the module stays). */
  dispose(): void;
}

// --- see inside, part 2 ---

export type HeadRole = 'sink' | 'previous-token' | 'induction' | 'local' | 'broad' | 'mixed';

/** One head's numbers (glassbox::HeadReport). */
export interface HeadReport {
  layer: number;
  head: number;
  entropyBits: number; // mean entropy of its rows over the tokens
  uniformEntropyBits: number; // what uniform attention would give on these tokens
  sink: number;
  previousToken: number;
  local: number;
  effectiveRank: number; // over the last rankWindow positions
  induction: number; // on the probe
  role: HeadRole;
}

export interface HeadMeasurement {
  heads: HeadReport[];
  roles: Record<HeadRole, number>; // how many heads have each role
}

export type MeasureStep = { done: false; completed: number; total: number } | ({ done: true; completed: number; total: number } & HeadMeasurement);

export interface HeadRoleThresholds {
  induction: number;
  previousToken: number;
  sink: number;
  local: number;
  localWindow: number;
  broadFraction: number;
  effectiveRankThreshold: number;
  rankWindow: number;
  probeLength: number;
}

/** How an ablation changed the next-token distribution (glassbox::DistributionChange). */
export interface AblationChange {
  position: number; // the position whose next-token distribution is compared
  klBits: number;
  topBefore: number;
  pTopBefore: number;
  qTopBefore: number;
  topAfter: number;
  qTopAfter: number;
  comparedFrom: number; // klBitsByPosition[i] is position comparedFrom + i
  klBitsByPosition: Float64Array; // KL(before ‖ after) in bits at every position the trace keeps
  topKeptByPosition: Uint8Array; // 1 where the top token is the same with the ablation
  meanHeads: Int32Array; // the heads replaced by their mean (layer * heads + head)
}

export interface PositionInfo {
  kind: string; // "rope", "sinusoidal", "learned", ...
  theta: number;
  rotaryDim: number;
  headDim: number;
  pairing: string;
  dim: number;
  maxSeqLen: number;
  freqFactors: Float32Array; // RoPE scaling: each pair's frequency divisor (empty: no scaling)
  qkNorm: boolean; // each head's queries and keys are RMS-normalized before RoPE
  slidingWindow: number; // keys a sliding-window layer sees (0: no layer slides)
  slidingLayers: number; // how many layers slide
  alibiSlopes: Float32Array; // ALiBi: each head's slope m (the score of a key d tokens back gets -m d); empty otherwise
  maxAlibiBias: number; // ALiBi's exponent: slopes 2^(-maxAlibiBias (h + 1) / heads) for a power of two
  thetaSliding: number; // their RoPE base (they are not scaled)
}

export interface ComponentSize {
  parameters: number;
  bytes: number;
}

export interface ModelAnatomy {
  components: Record<'tokenEmbedding' | 'positionEmbedding' | 'tokenTypes' | 'attentionQ' | 'attentionK' | 'attentionV' | 'attentionO' | 'feedForward' | 'norms' | 'biases' | 'output' | 'maskedLmHead', ComponentSize>;
  parameters: number;
  bytes: number;
  bytesReadPerToken: number;
}

/** A layer's most active feed-forward neurons at a position (glassbox/neurons.hpp). */
export interface NeuronReport {
  layer: number;
  position: number;
  gated: boolean; // act(gate) × up; else act(up)
  top: { neuron: number; activation: number; pre: number; up: number }[]; // pre: the gate (gated) or up projection before the activation
  peaks: { position: number; activation: number }[][]; // per top neuron: where in the text it fires most
}

/** A logit split into what each part of the model wrote (glassbox/logit_attribution.hpp). */
export interface LogitAttributionResult {
  position: number;
  token: number;
  baselineToken: number; // -1: one token's logit; else the difference's second token
  layers: number;
  heads: number;
  logit: number;
  embedding: number;
  headParts: Float64Array; // [layer][head]
  mlp: Float64Array; // [layer]
  bias: number;
  sumOfParts: number; // equals logit up to float rounding
}

export interface PatchingPlan {
  total: number; // cells: (layers + 1) × positions residual cells, then layers × heads
  positions: number;
  layers: number;
  heads: number;
  target: number;
  metricClean: number; // log p(target) at the last position, clean prompt
  metricCorrupt: number;
  /** Runs up to `cells` more cells. */
  step(cells?: number): PatchingStep;
  cancel(): void;
}

export interface PatchingStep {
  done: number;
  total: number;
  finished: boolean;
  // With finished: the effects, (patched − corrupt) / (clean − corrupt), 0 where the gap is below 1e-6 nats.
  residual?: Float64Array; // [(layers + 1)][positions]
  heads?: Float64Array; // [layers][heads]
  runs?: number;
  target?: number;
  metricClean?: number;
  metricCorrupt?: number;
}

/** What the attention lab compares (defaults: layer 0, head 0, topK 8, continueTokens 0, comparedPositions 0 = all). */
export interface AttentionLabOptions {
  layer?: number;
  head?: number;
  topK?: number;
  /** Greedy tokens each attention writes after the text. */
  continueTokens?: number;
  /** How many of the newest positions get their next-token distributions compared (0: all). */
  comparedPositions?: number;
}

/** Exact attention against a variant on one text; the last position is the step looked at. */
export interface AttentionLab {
  n: number;
  /** The head's exact attention, n × n row-major (row i: query i over keys 0..i, zeros after). */
  exact: Float32Array;
  /** The variant's rows on the same q and k (linear, performer: the weights they imply). */
  variant: Float32Array;
  /** low-rank: the share of the exact matrix's energy its rank-R truncation keeps; -1 otherwise. */
  energyKept: number;
  exactTop: TopToken[];
  variantTop: TopToken[];
  /** KL(exact ‖ variant) of the step's next-token distributions, nats. */
  kl: number;
  topAgrees: boolean;
  /** The first position compared: klByPosition[i] is position comparedFrom + i. */
  comparedFrom: number;
  klByPosition: Float64Array;
  topAgreesByPosition: boolean[];
  /** Mean −log p of the text's tokens the compared positions predict, under each attention. */
  exactLoss: number;
  variantLoss: number;
  exactContinuation: Int32Array;
  variantContinuation: Int32Array;
  /** Why the variant writes nothing (low-rank needs the whole matrix at once); empty otherwise. */
  variantCannotContinue: string;
}

/** glassbox/length_cost.hpp. */
export interface LengthCostPlan {
  variants: { attention: string; crossoverLength: number; refused: string }[]; // crossoverLength 0: never; refused: why the model cannot take it ('' when it can)
  context: number;
  lengths: number[]; // powers of two from 16 while a prompt stays small enough to measure in seconds
}

export interface TimeSpread {
  median: number; // seconds
  min: number;
  max: number;
}

export interface LengthCostPoint {
  attention: string;
  length: number;
  prefillSeconds: TimeSpread; // one forward pass over `length` tokens
  tokenSeconds: TimeSpread; // the token at position length - 1 (it attends to `length` keys)
  memory: { kvCacheBytes: number; scoresBytes: number; attentionStateBytes: number }; // what the session allocates
  formula: {
    attentionToken: number; // FLOPs of that token, all layers
    projectionsToken: number;
    feedForwardToken: number;
    attentionPrompt: number; // FLOPs of the prompt of `length` tokens
    projectionsPrompt: number;
    feedForwardPrompt: number;
    scoresBytes: number; // one layer's scores held whole (n x keys seen per head)
    kvCacheBytes: number; // the keys and values the variant needs
    stateBytes: number; // linear and performer's running sums
  };
}

export interface TokenFlops {
  sequenceLength: number;
  attentionProjections: number;
  attentionScores: number;
  feedForward: number;
  output: number;
  total: number;
}

// --- see inside, part 1 ---

/** One candidate through the sampler's steps (glassbox::PipelineToken). */
export interface PipelineToken {
  id: number;
  logit: number;
  pTemperature1: number; // softmax of the logits as they are
  pTemperature: number; // softmax at the temperature
  pTopK: number; // renormalized over what top-k kept; 0 if cut
  pTopP: number; // renormalized over the final candidates; 0 if cut: what the sampler draws from
  keptByTopK: boolean;
  keptByTopP: boolean;
}

export interface SamplingPipeline {
  vocabSize: number;
  topKKept: number; // tokens that survive top-k (the vocabulary when off)
  topPKept: number; // the final candidates
  tokens: PipelineToken[]; // highest logit first
}

/** glassbox::AttentionDetail: scores = q·k / scale, p = softmax(scores), output = headScale × Σ p v. */
export interface AttentionDetail {
  layer: number;
  head: number;
  query: number;
  kvHead: number;
  headDim: number;
  keys: number; // query + 1; later positions are masked
  firstVisibleKey: number; // a sliding-window layer also masks the keys before this one (probability 0)
  scale: number; // sqrt(headDim)
  headScale: number;
  queryUnrotated: Float32Array;
  q: Float32Array;
  ropeAngles: Float32Array; // empty without RoPE
  keyRows: Float32Array; // [keys][headDim]
  dots: Float32Array;
  scores: Float32Array;
  probabilities: Float32Array;
  valueRows: Float32Array; // [keys][headDim]
  output: Float32Array;
}

/** Each layer's prediction at each position; arrays are [layer][position - begin][k]. */
export interface LogitLens {
  layers: number; // n_layers + 1: the last row is the model's own logits
  begin: number;
  size: number;
  k: number;
  ids: Int32Array;
  probabilities: Float32Array;
  logits: Float32Array;
}
