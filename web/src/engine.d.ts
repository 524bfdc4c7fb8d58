// Types for the engine's JavaScript side, which lives outside web/: the Emscripten module factory
// (build-wasm/glassbox-engine.mjs), its .wasm, and the glue wasm/engine.js. Aliased in vite.config.mjs.

declare module '@engine-build/glassbox-engine.mjs' {
  const createGlassboxModule: (options?: Record<string, unknown>) => Promise<unknown>;
  export default createGlassboxModule;
}

declare module '@engine-build/glassbox-engine.wasm?url' {
  const url: string;
  export default url;
}

declare module '@engine/glue' {
  export const MODEL_SLOT: 0;
  export const TOKENIZER_SLOT: 1;
  export class GlassboxError extends Error {}

  export interface ModelInfo {
    architecture: string;
    dim: number;
    hiddenDim: number;
    layers: number;
    heads: number;
    kvHeads: number;
    headDim: number;
    vocabSize: number;
    maxSeqLen: number;
    contextLength: number;
    norm: string;
    position: string;
    activation: string;
    gatedFfn: boolean;
    tiedEmbeddings: boolean;
    parameters: number;
    weightBytes: number;
    bosId: number;
    eosId: number;
    engine: string;
  }

  export interface Upload {
    write(chunk: Uint8Array): void;
    readonly written: number;
    finish(): void;
  }

  export class GlassboxEngine {
    static create(createModule: unknown, moduleOptions?: Record<string, unknown>): Promise<GlassboxEngine>;
    beginUpload(slot: number, size: number, name: string): Upload;
    uploadBytes(slot: number, bytes: Uint8Array, name: string): void;
    clearUpload(slot: number): void;
    load(modelName: string, tokenizerName?: string): ModelInfo;
    formats(): string[];
    pieces(ids: ArrayLike<number>): Uint8Array[];
    info(): ModelInfo;
    tokenize(text: string, addBos?: boolean): { id: number; begin: number; end: number; piece: Uint8Array }[];
    piece(id: number): Uint8Array;
    setSampler(settings: { temperature: number; topK: number; topP: number; seed: number }): void;
    start(prompt: string): Int32Array;
    step(): { id: number; bytes: Uint8Array; position: number; end: boolean };
    sequence(): Int32Array;
    attention(layer: number, head: number): { size: number; matrix: Float32Array };
    topTokens(k: number): { id: number; logit: number; probability: number }[];
    reset(): void;
    dispose(): void;
  }
}
