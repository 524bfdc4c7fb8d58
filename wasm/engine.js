// The JavaScript API of the glassbox WebAssembly module: one GlassboxEngine over the Embind bindings
// (bindings.cpp), used as is by the page's Web Worker, the Node tests and any other page. Types and
// documentation: engine.d.ts beside this file; a tour with an example: README.md.
//
// Rules (what a prompt may be, when generation ends, the sampler's defaults) live in the C++ core; this file
// only moves bytes in and turns the bindings' {error, code} values into thrown GlassboxErrors.

/** An error from the engine: `code` is the core's stable ErrorCode name, `message` its explanation. */
export class GlassboxError extends Error {
  constructor(message, code) {
    super(message);
    this.name = 'GlassboxError';
    this.code = code;
  }
}

function unwrap(result) {
  if (result && typeof result === 'object' && typeof result.error === 'string') throw new GlassboxError(result.error, result.code);
  return result;
}

/** Upload slots: the model file, and a separate tokenizer file (llama2.c checkpoints). */
export const MODEL_SLOT = 0;
export const TOKENIZER_SLOT = 1;

export class GlassboxEngine {
  /**
   * Instantiates the Emscripten module (`createModule`: glassbox-engine.mjs's or glassbox-engine-threads.mjs's
   * default export) and an engine whose sessions compute with `threads` threads. The threaded module starts
   * its pool of Web Workers with the module, one per thread beyond the first (`pthreadPoolSize`), so a
   * session's threads start at once; the single-threaded module runs on one thread whatever is asked.
   */
  static async create(createModule, moduleOptions = {}, { threads = 1 } = {}) {
    const count = Math.max(1, Math.floor(threads) || 1);
    const module = await createModule({ pthreadPoolSize: count - 1, ...moduleOptions });
    return new GlassboxEngine(module, count);
  }

  constructor(module, threads = 1) {
    this.module = module;
    this.engine = this.threaded() ? new module.Engine(threads) : new module.Engine();
  }

  // --- the build ----------------------------------------------------------------------------------------

  version() {
    return this.module.version();
  }

  buildDescription() {
    return this.module.buildDescription();
  }

  samplerDefaults() {
    return this.module.samplerDefaults();
  }

  errorCodes() {
    return this.module.errorCodes();
  }

  formats() {
    return this.engine.formats();
  }

  /** Whether this is the pthreads build (glassbox-engine-threads), which can compute on several threads. */
  threaded() {
    return this.module.threadedBuild?.() ?? false; // modules built before there were two builds: single-threaded
  }

  /** The threads each loaded model's session computes with (`info().threads`: how many are running). */
  threads() {
    return this.engine.threads();
  }

  threadChoice(tokens) {
    return unwrap(this.engine.threadChoice(tokens));
  }

  setThreads(count, automatic) {
    return unwrap(this.engine.setThreads(count, automatic));
  }

  // --- loading --------------------------------------------------------------------------------------------

  beginUpload(slot, size, name) {
    const address = unwrap(this.engine.allocateUpload(slot, size, name));
    let written = 0;
    return {
      write: (chunk) => {
        if (written + chunk.length > size) throw new GlassboxError(`${name}: more bytes arrived than announced (${size})`, 'io');
        this.module.HEAPU8.set(chunk, address + written); // HEAPU8 is re-read: the heap may have grown (the
        // threaded build's allocateUpload grows it on this thread too, which renews Module.HEAPU8)
        written += chunk.length;
      },
      get written() {
        return written;
      },
      finish: () => {
        if (written !== size) throw new GlassboxError(`${name}: only ${written} of ${size} bytes arrived`, 'truncated');
      },
    };
  }

  uploadBytes(slot, bytes, name) {
    const upload = this.beginUpload(slot, bytes.length, name);
    upload.write(bytes);
    upload.finish();
  }

  clearUpload(slot) {
    this.engine.clearUpload(slot);
  }

  load(modelName, tokenizerName = '') {
    return unwrap(this.engine.load(modelName, tokenizerName));
  }

  info() {
    return unwrap(this.engine.info());
  }

  // --- an encoder's tasks ---------------------------------------------------------------------------------

  embed(texts, { pooling = '', normalize = false } = {}) {
    return unwrap(this.engine.embed(texts, pooling, normalize));
  }

  fillMask(text, topK = 5) {
    return unwrap(this.engine.fillMask(text, topK));
  }

  setEncoderHeadScales(scales) {
    return unwrap(this.engine.setEncoderHeadScales(Array.from(scales)));
  }

  encoderAttention(texts, index = 0, { parseSpecial = false } = {}) {
    return unwrap(this.engine.encoderAttention(texts, parseSpecial, index));
  }

  // --- tokens ---------------------------------------------------------------------------------------------

  tokenize(text, addBos = true, { parseSpecial = false } = {}) {
    const r = unwrap(this.engine.tokenize(text, addBos, parseSpecial));
    return Array.from(r.ids, (id, i) => ({ id, begin: r.begins[i], end: r.ends[i], piece: r.pieces[i] }));
  }

  piece(id) {
    return unwrap(this.engine.piece(id));
  }

  chatInfo() {
    return unwrap(this.engine.chatInfo());
  }

  pieces(ids) {
    return unwrap(this.engine.pieces(Array.from(ids)));
  }

  // --- generation -----------------------------------------------------------------------------------------

  setSampler(settings = {}) {
    const s = { ...this.samplerDefaults(), ...definedFields(settings) };
    return unwrap(this.engine.setSampler(s.temperature, s.topK, s.topP, s.seed));
  }

  start(prompt, { maxTokens = 0, maxSteps = 0 } = {}) {
    return unwrap(this.engine.start(prompt, maxTokens, maxSteps)).ids;
  }

  startTokens(ids, { maxTokens = 0, maxSteps = 0 } = {}) {
    return unwrap(this.engine.startTokens(Array.from(ids), maxTokens, maxSteps));
  }

  step() {
    return unwrap(this.engine.step());
  }

  stop() {
    return this.engine.stop();
  }

  reset() {
    this.engine.reset();
  }

  // --- inspection -----------------------------------------------------------------------------------------

  sequence() {
    return this.engine.sequence();
  }

  attention(layer, head, begin, end) {
    const trace = this.traceInfo();
    const last = end ?? trace.positions;
    const first = begin ?? trace.firstKept;
    const r = unwrap(this.engine.attention(layer, head, first, last));
    // A copy of the matrix: the view points into the heap.
    return { begin: r.begin, size: r.size, matrix: new Float32Array(r.matrix), stats: r.stats, firstVisible: r.firstVisible };
  }

  traceInfo() {
    return unwrap(this.engine.traceInfo());
  }

  memoryBytes() {
    return this.module.memoryBytes();
  }

  /** The largest file the engine takes (the core's rule: more is more than the WebAssembly heap can hold). */
  largestUpload() {
    return this.module.largestUpload();
  }

  traceBudgetBytes() {
    return this.module.traceBudgetBytes();
  }

  topTokens(k) {
    return unwrap(this.engine.topTokens(k));
  }

  // --- see inside, part 2: head statistics and roles, ablation, positions, anatomy ----------------------

  /** The core's measure_heads over `ids` in one call: {heads, roles}. */
  measureHeads(ids) {
    return unwrap(this.engine.measureHeads(Array.from(ids)));
  }

  /**
   * The same numbers one head at a time: returns {total, step()}; each step() measures one head (the last
   * one runs the induction probe) and returns {done, completed, total}, with {heads, roles} when done.
   */
  beginMeasureHeads(ids) {
    const { total } = unwrap(this.engine.measureBegin(Array.from(ids)));
    return { total, step: () => unwrap(this.engine.measureStep()) };
  }

  // --- training (bind_train.cpp) -------------------------------------------------------------------------

  /** A built-in synthetic task's text in the loaded model's vocabulary: {task, lines, length, seed}. */
  syntheticTask(options = {}) {
    return unwrap(this.engine.syntheticTask(options));
  }

  /**
   * Begins a training run: `config` a training config's JSON (the loaded model's tokenizer) or '' to fine-tune
   * the loaded model; `data` one sequence per line; `settings` {steps, batch, context, learningRate, warmup,
   * schedule, weightDecay, clip, seed}. Returns {steps, layers, heads, dim, context, parameters}.
   */
  trainBegin(config, data, settings = {}) {
    return unwrap(this.engine.trainBegin(config, data, settings));
  }

  /** One step: {step, loss, learningRate, gradNorm, layerGradNorms, tokens, seconds}. */
  trainStep() {
    return unwrap(this.engine.trainStep());
  }

  /** The held-out loss (nats per token) of the weights as they are on `text`. */
  trainHeldOut(text) {
    return unwrap(this.engine.trainHeldOut(text));
  }

  /** Every head's induction score (layer-major) of the weights as they are. */
  trainInduction() {
    return unwrap(this.engine.trainInduction());
  }

  /** The weights as they are, as an F32 GGUF file (with the tokenizer). */
  trainGguf(name) {
    return unwrap(this.engine.trainGguf(name));
  }

  trainEnd() {
    this.engine.trainEnd();
  }

  headRoleThresholds() {
    return this.module.headRoleThresholds();
  }

  /** The core's foreign-bytes rule on a file's first bytes: {kind, description}, or null. */
  foreignBytes(head, part) {
    return this.module.foreignBytes(head, part);
  }

  /** Whether a file's first bytes are GGUF's magic (a GGUF carries its own tokenizer). */
  isGguf(head) {
    return this.module.isGguf(head);
  }

  /** How many leading bytes foreignBytes() and isGguf() read. */
  foreignBytesHead() {
    return this.module.foreignBytesHead();
  }

  /** Scales heads (`scales[layer * heads + head]`, 0 = off) and reads the traced tokens again: the change. */
  ablate(scales, position = -1, meanHeads = []) {
    return unwrap(this.engine.ablate(Array.from(scales), position, Array.from(meanHeads)));
  }

  clearAblation() {
    return unwrap(this.engine.clearAblation());
  }

  headScales() {
    return unwrap(this.engine.headScales());
  }

  positionInfo() {
    return unwrap(this.engine.positionInfo());
  }

  sinusoidalTable(positions, dim) {
    return unwrap(this.module.sinusoidalTable(positions, dim));
  }

  ropeAngles(position, layer = -1) {
    return unwrap(this.engine.ropeAngles(position, layer));
  }

  ropeDotProducts(q, k, positions, layer = -1) {
    return unwrap(this.engine.ropeDots(Array.from(q), Array.from(k), positions, layer));
  }

  headQuery(layer, head, position) {
    return unwrap(this.engine.headQuery(layer, head, position));
  }

  anatomy() {
    return unwrap(this.engine.anatomy());
  }

  flopsPerToken(sequenceLength) {
    return unwrap(this.engine.flops(sequenceLength));
  }

  // --- neurons ----------------------------------------------------------------------------------------------

  topNeurons(ids, layer, position, k = 8, perNeuron = 3) {
    return unwrap(this.engine.topNeurons(Array.from(ids), layer, position, k, perNeuron));
  }

  // --- circuits: direct logit attribution, activation patching ---------------------------------------------

  logitAttribution(position, token, baseline = -1) {
    return unwrap(this.engine.logitAttribution(position, token, baseline));
  }

  beginPatching(clean, corrupt, target = -1) {
    const plan = unwrap(this.engine.patchBegin(Array.from(clean), Array.from(corrupt), target));
    return { ...plan, step: (cells = 1) => unwrap(this.engine.patchStep(cells)), cancel: () => this.engine.patchCancel() };
  }

  // --- the attention lab ------------------------------------------------------------------------------------

  attentionLab(ids, variant, options = {}) {
    return unwrap(this.engine.attentionLab(Array.from(ids), variant, options));
  }

  lengthCostPlan() {
    return unwrap(this.engine.lengthCostPlan());
  }

  lengthCost(attention, length, repeat = 3) {
    return unwrap(this.engine.lengthCost(attention, length, repeat));
  }

  // --- see inside, part 1: the sampling pipeline, attention step by step, the logit lens, export ----------

  samplingPipeline(topN = 10) {
    return unwrap(this.engine.samplingPipeline(topN));
  }

  attentionDetail(layer, head, query) {
    return unwrap(this.engine.attentionDetail(layer, head, query));
  }

  logitLens(begin, end, k = 1) {
    return unwrap(this.engine.logitLens(begin, end, k));
  }

  residualNorms(begin, end) {
    return unwrap(this.engine.residualNorms(begin, end));
  }

  inspectJson(prompt, { steps = 8, candidates = 10 } = {}) {
    return unwrap(this.engine.inspectJson(prompt, steps, candidates));
  }

  dispose() {
    this.engine.delete();
  }
}

/** The fields of `settings` that are set: `{topK: undefined}` means "the default", as a missing field does. */
function definedFields(settings) {
  return Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined));
}
