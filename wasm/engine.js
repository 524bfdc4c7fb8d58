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
  /** Instantiates the Emscripten module (`createModule`, glassbox-engine.mjs's default export) and an engine. */
  static async create(createModule, moduleOptions = {}) {
    const module = await createModule(moduleOptions);
    return new GlassboxEngine(module);
  }

  constructor(module) {
    this.module = module;
    this.engine = new module.Engine();
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

  // --- loading --------------------------------------------------------------------------------------------

  beginUpload(slot, size, name) {
    const address = unwrap(this.engine.allocateUpload(slot, size, name));
    let written = 0;
    return {
      write: (chunk) => {
        if (written + chunk.length > size) throw new GlassboxError(`${name}: more bytes arrived than announced (${size})`, 'io');
        this.module.HEAPU8.set(chunk, address + written); // HEAPU8 is re-read: the heap may have grown
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

  // --- tokens ---------------------------------------------------------------------------------------------

  tokenize(text, addBos = true) {
    const r = unwrap(this.engine.tokenize(text, addBos));
    return Array.from(r.ids, (id, i) => ({ id, begin: r.begins[i], end: r.ends[i], piece: r.pieces[i] }));
  }

  piece(id) {
    return unwrap(this.engine.piece(id));
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
    return { begin: r.begin, size: r.size, matrix: new Float32Array(r.matrix), stats: r.stats };
  }

  traceInfo() {
    return unwrap(this.engine.traceInfo());
  }

  memoryBytes() {
    return this.module.memoryBytes();
  }

  traceBudgetBytes() {
    return this.module.traceBudgetBytes();
  }

  topTokens(k) {
    return unwrap(this.engine.topTokens(k));
  }

  dispose() {
    this.engine.delete();
  }
}

/** The fields of `settings` that are set: `{topK: undefined}` means "the default", as a missing field does. */
function definedFields(settings) {
  return Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined));
}
