// The JS face of the glassbox WASM module, used by the page's Web Worker and by the Node tests.
// It owns one Embind Engine, streams files into the WASM heap without a second copy, and turns the core's
// error values ({error: message}) into thrown JS Errors carrying the core's message.

/** Error raised by the engine; `message` is the core's explanation (file, field, expected versus found). */
export class GlassboxError extends Error {
  constructor(message) {
    super(message);
    this.name = 'GlassboxError';
  }
}

function unwrap(result) {
  if (result && typeof result === 'object' && typeof result.error === 'string') throw new GlassboxError(result.error);
  return result;
}

export const MODEL_SLOT = 0;
export const TOKENIZER_SLOT = 1;

export class GlassboxEngine {
  /**
   * @param {Function} createModule the Emscripten factory (glassbox-engine.mjs's default export)
   * @param {object} moduleOptions passed to it (locateFile, wasmBinary, ...)
   */
  static async create(createModule, moduleOptions = {}) {
    const module = await createModule(moduleOptions);
    return new GlassboxEngine(module);
  }

  constructor(module) {
    this.module = module;
    this.engine = new module.Engine();
  }

  /**
   * Reserves `size` bytes in the WASM heap for a file and returns a writer that copies chunks straight in.
   * Throws if the heap cannot grow that far (the browser's 4 GiB limit, or memory pressure).
   */
  beginUpload(slot, size, name) {
    if (!Number.isFinite(size) || size <= 0) throw new GlassboxError(`${name}: the file is empty`);
    const address = this.engine.allocateUpload(slot, size);
    if (!address) {
      throw new GlassboxError(`${name}: not enough memory for ${(size / 2 ** 20).toFixed(1)} MiB in the WebAssembly heap`);
    }
    let written = 0;
    return {
      write: (chunk) => {
        if (written + chunk.length > size) throw new GlassboxError(`${name}: more bytes arrived than announced (${size})`);
        this.module.HEAPU8.set(chunk, address + written); // HEAPU8 is re-read: the heap may have grown
        written += chunk.length;
      },
      get written() {
        return written;
      },
      finish: () => {
        if (written !== size) throw new GlassboxError(`${name}: only ${written} of ${size} bytes arrived`);
      },
    };
  }

  /** Uploads a whole byte array (tests, small files). */
  uploadBytes(slot, bytes, name) {
    const upload = this.beginUpload(slot, bytes.length, name);
    upload.write(bytes);
    upload.finish();
  }

  /** Frees an upload slot (after a cancelled or failed download). */
  clearUpload(slot) {
    this.engine.clearUpload(slot);
  }

  /**
   * Loads the uploaded model and tokenizer; returns the model info. Without a tokenizer name the tokenizer
   * comes from the model file itself (GGUF). The old model stays loaded on failure.
   */
  load(modelName, tokenizerName = '') {
    return unwrap(this.engine.load(modelName, tokenizerName));
  }

  /** The model formats this build reads, e.g. ["llama2c", "gguf"]. */
  formats() {
    return this.engine.formats();
  }

  /** The vocabulary pieces of many tokens: Uint8Array[]. */
  pieces(ids) {
    return unwrap(this.engine.pieces(Array.from(ids)));
  }

  info() {
    return unwrap(this.engine.info());
  }

  /** [{id, begin, end, piece: Uint8Array}] for each token of `text`. */
  tokenize(text, addBos = true) {
    const r = unwrap(this.engine.tokenize(text, addBos));
    return Array.from(r.ids, (id, i) => ({ id, begin: r.begins[i], end: r.ends[i], piece: r.pieces[i] }));
  }

  piece(id) {
    return unwrap(this.engine.piece(id));
  }

  setSampler({ temperature = 1.0, topK = 0, topP = 1.0, seed = 1 } = {}) {
    unwrap(this.engine.setSampler(temperature, topK, topP, seed));
  }

  /** Resets the session and queues the prompt (BOS added). Returns the prompt's ids. */
  start(prompt) {
    return unwrap(this.engine.start(prompt)).ids;
  }

  /** One token: {id, bytes: Uint8Array, position, end}. */
  step() {
    return unwrap(this.engine.step());
  }

  /** The ids whose attention is traced: prompt plus the generated tokens fed back so far. */
  sequence() {
    return this.engine.sequence();
  }

  /** {size, matrix}: one head's [size][size] attention (head -1: all heads, [heads][size][size]). A copy. */
  attention(layer, head) {
    const r = unwrap(this.engine.attention(layer, head));
    return { size: r.size, matrix: new Float32Array(r.matrix) };
  }

  topTokens(k) {
    return unwrap(this.engine.topTokens(k));
  }

  reset() {
    this.engine.reset();
  }

  dispose() {
    this.engine.delete();
  }
}
