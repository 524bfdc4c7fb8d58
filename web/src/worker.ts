// The Web Worker that owns the engine: all model work happens here, the page only draws. The worker uses the
// engine's API (wasm/engine.js) as it is: the rules of generation (prompt checks, when to end, why) are the
// core's, and errors are explained by their codes.
// Generation is paced by the page: each token is posted, and the next one is computed only when the page
// acknowledges it. Between tokens the worker is back in its event loop, so a Stop (or a tokenize request
// while the user types) is handled before the next forward pass.
import type { GlassboxEngine } from '@glassbox/engine';
import { replyTo, type AttentionTrace, type DoneReason, type ExtendRun, type FromWorker, type ModelSource, type ReplyTo, type RequestType, type SamplerSettings, type ToWorker } from './protocol';
import type { ChatRequest, ChatStarted } from './protocol-chat';
import { chatSupport, startChat } from './worker/chat';
import { handleEncoder } from './worker/encoder';
import { handleLengthCost } from './worker/length-cost';
import { handleTrain } from './worker/train';
import { chooseBuild, startEngine } from './worker/engine-build';
import { explain, PageError, PlainError } from './worker/explain';
import { cachedStates, deleteCached } from './worker/hub-cache';
import { handleCircuits } from './worker/circuits';
import { handleModelInspector } from './worker/model-inspector';
import { handleStepInspector, stepPipeline } from './worker/step-inspector';
import { type Part, uploadSource } from './worker/upload-source';

interface WorkerScope {
  postMessage(message: FromWorker, transfer?: Transferable[]): void;
  onmessage: ((event: MessageEvent<ToWorker>) => void) | null;
}
const scope = self as unknown as WorkerScope;
const post = (message: FromWorker, transfer: Transferable[] = []) => scope.postMessage(message, transfer);

let engine: GlassboxEngine | null = null;
const engineReady = startEngine(chooseBuild()).then(
  (created) => {
    engine = created;
    post({
      type: 'ready',
      formats: created.formats(),
      samplerDefaults: created.samplerDefaults(),
      build: created.buildDescription(),
      version: created.version(),
      threaded: created.threaded(),
      threads: created.threads(),
      largestUpload: created.largestUpload(),
    });
    return created;
  },
  (error: unknown) => {
    post({ type: 'fatal', error: explain(error, 'The WebAssembly engine could not start') });
    throw error;
  },
);

// --- loading ----------------------------------------------------------------------------------------------

interface LoadJob {
  abort: AbortController;
  finished: Promise<void>;
}
let currentLoad: LoadJob | null = null;

async function load(req: number, source: ModelSource) {
  const previous = currentLoad;
  previous?.abort.abort();
  const abort = new AbortController();
  let finish = () => {};
  currentLoad = { abort, finished: new Promise<void>((resolve) => (finish = resolve)) };
  const job = currentLoad;
  try {
    await previous?.finished; // two loads never write into the upload slots at once
    const e = await engineReady;
    const progress = (file: Part, name: string) => (loaded: number, total: number | null) => post({ type: 'progress', req, file, name, loaded, total });
    const uploaded = await uploadSource(e, source, progress, abort.signal);
    if (abort.signal.aborted) throw new PageError('cancelled', source.label);
    stopGeneration(e);
    const info = e.load(uploaded.model, uploaded.tokenizer?.name ?? '');
    post(replyTo('load', req, { label: source.label, info, tokenizer: uploaded.tokenizer, setAside: uploaded.setAside, chat: chatSupport(e) }));
  } catch (error) {
    post({ type: 'reply', req, ok: false, error: explain(error, 'The model could not be loaded', source.kind === 'files' ? 'files' : 'url') });
  } finally {
    finish();
    if (currentLoad === job) currentLoad = null;
  }
}

// --- generation -------------------------------------------------------------------------------------------

interface Generation {
  gen: number;
  topK: number; // candidates shown per step
  count: number;
  started: number;
}
let generation: Generation | null = null;

function endGeneration(reason: DoneReason, error?: unknown) {
  const g = generation;
  if (!g) return;
  generation = null;
  post({
    type: 'done',
    gen: g.gen,
    reason,
    count: g.count,
    elapsedMs: performance.now() - g.started,
    ...(error ? { error: explain(error, 'Generation stopped with an error') } : {}),
  });
}

/** Ends the running generation, if any, with the reason the engine gives. */
function stopGeneration(e: GlassboxEngine) {
  if (generation) endGeneration(e.stop() ?? 'stopped');
}

function generate(e: GlassboxEngine, gen: number, prompt: string, sampler: SamplerSettings, maxTokens: number, topK: number, chatRequest?: ChatRequest, extend?: ExtendRun) {
  stopGeneration(e);
  const started = performance.now();
  let ids: number[];
  let chat: ChatStarted | undefined;
  try {
    e.setSampler(sampler);
    if (chatRequest) ({ ids, started: chat } = startChat(e, chatRequest.messages, maxTokens)); // worker/chat.ts
    else if (extend) ids = Array.from(e.startTokens(extend.ids, { maxTokens }).ids); // a Step: the run goes on where it was
    else ids = Array.from(e.start(prompt, { maxTokens }));
  } catch (error) {
    post({ type: 'done', gen, reason: 'error', count: 0, elapsedMs: performance.now() - started, error: explain(error, 'Could not start generating') });
    return;
  }
  generation = { gen, topK, count: extend?.generated ?? 0, started };
  // The session has not read the prompt yet: what it will take for it, and then for each new token.
  const threads = { prompt: e.threadChoice(Math.max(1, ids.length - e.sequence().length)), generation: e.threadChoice(1) };
  post({ type: 'started', gen, promptIds: ids, promptPieces: e.pieces(ids), chat, threads });
  step(e);
}

/** One forward pass and sample; then wait for the page's acknowledgement. The engine says when to end. */
function step(e: GlassboxEngine) {
  const g = generation;
  if (!g) return;
  try {
    const t0 = performance.now();
    const token = e.step();
    const stepMs = performance.now() - t0;
    const top = g.topK > 0 ? e.topTokens(g.topK).map((t) => ({ ...t, piece: e.piece(t.id) })) : [];
    post({
      type: 'token',
      gen: g.gen,
      index: g.count,
      id: token.id,
      bytes: token.bytes,
      piece: e.piece(token.id),
      end: token.end,
      reason: token.reason,
      top,
      pipeline: g.topK > 0 ? stepPipeline(e, token.position, g.topK) : undefined,
      stepMs,
      threads: token.threads,
    });
    g.count += 1;
    if (token.end) endGeneration(token.reason);
  } catch (error) {
    endGeneration('error', error);
  }
}

// --- inspection -------------------------------------------------------------------------------------------

/**
 * The views show at most this many of the newest positions: a heatmap cell stays visible and tappable, and
 * reading a window costs the same at position 100 or 10,000.
 */
const ATTENTION_WINDOW = 256;

function attention(e: GlassboxEngine, layer: number, head: number): AttentionTrace {
  const started = performance.now();
  const info = e.info();
  const trace = e.traceInfo();
  const total = trace.positions;
  const begin = Math.max(trace.firstKept, total - ATTENTION_WINDOW);
  const { size, matrix, stats, firstVisible } = e.attention(layer, head, begin, total);
  const ids = Array.from(e.sequence()).slice(begin, begin + size);
  const pieces = e.pieces(ids);
  return {
    layer,
    head,
    heads: head < 0 ? info.heads : 1,
    begin,
    size,
    total,
    matrix,
    stats,
    firstVisible,
    ids,
    pieces,
    firstKept: trace.firstKept,
    bytesPerPosition: trace.bytesPerPosition,
    budgetBytes: trace.budgetBytes,
    readMs: performance.now() - started,
  };
}

// --- messages ---------------------------------------------------------------------------------------------

/** Answers request `req` of type `kind` with what `work` returns (its type is the one protocol.ts pairs with `kind`). */
function reply<K extends RequestType>(kind: K, req: number, work: () => ReplyTo<K>, failTitle: string, transfer?: (value: ReplyTo<K>) => Transferable[]) {
  try {
    if (!engine) throw new PlainError('The engine is still starting');
    const value = work();
    post(replyTo(kind, req, value), transfer?.(value) ?? []);
  } catch (error) {
    post({ type: 'reply', req, ok: false, error: explain(error, failTitle) });
  }
}

scope.onmessage = (event) => {
  const message = event.data;
  switch (message.type) {
    case 'load':
      void load(message.req, message.source);
      break;
    case 'cancel-load':
      currentLoad?.abort.abort(); // the load answers 'cancelled'; the model loaded before stays
      break;
    case 'tokenize':
      reply(message.type, message.req, () => engine!.tokenize(message.text, true), 'Could not tokenize the text');
      break;
    case 'attention':
      reply(message.type, message.req, () => attention(engine!, message.layer, message.head), 'Could not read the attention trace', (value) => [value.matrix.buffer]);
      break;
    case 'hub-cached':
      cachedStates(message.urls).then(
        (value) => post(replyTo(message.type, message.req, value)),
        (error: unknown) => post({ type: 'reply', req: message.req, ok: false, error: explain(error, 'Could not read the models kept in this browser') }),
      );
      break;
    case 'hub-delete':
      deleteCached(message.url).then(
        () => post(replyTo(message.type, message.req, null)),
        (error: unknown) => post({ type: 'reply', req: message.req, ok: false, error: explain(error, 'Could not delete the saved copy') }),
      );
      break;
    case 'threads':
      reply(message.type, message.req, () => engine!.setThreads(message.count, message.automatic), 'Could not change the threads');
      break;
    case 'memory':
      reply(
        message.type,
        message.req,
        () => ({ wasmBytes: engine!.memoryBytes(), traceBytes: engine!.traceInfo().bytesHeld, traceBudgetBytes: engine!.traceBudgetBytes() }),
        'Could not read the memory use',
      );
      break;
    case 'generate':
      engineReady.then(
        (e) => generate(e, message.gen, message.prompt, message.sampler, message.maxTokens, message.topK, message.chat, message.extend),
        () => post({ type: 'done', gen: message.gen, reason: 'error', count: 0, elapsedMs: 0, error: { title: 'The engine did not start' } }),
      );
      break;
    case 'ack':
      if (generation && generation.gen === message.gen && message.index === generation.count - 1 && engine) step(engine);
      break;
    case 'stop':
      if (generation && generation.gen === message.gen && engine) stopGeneration(engine);
      break;
    default:
      // An encoder's tasks (worker/encoder.ts): fill-mask and sentence similarity.
      if (handleEncoder(engine, post, message)) break;
      // The circuit tools (worker/circuits.ts): logit attribution, activation patching.
      if (handleCircuits(engine, post, message)) break;
      // The step inspector (worker/step-inspector.ts): attention step by step, the logit lens, the document.
      if (handleStepInspector(engine, post, message)) break;
      // The anatomy's cost against length (worker/length-cost.ts).
      if (handleLengthCost(engine, post, message)) break;
      // The training lab (worker/train.ts).
      if (handleTrain(engine, post, message)) break;
      // The model inspector (worker/model-inspector.ts): heads, ablation, positions, anatomy.
      handleModelInspector({ engine, post, generating: () => generation !== null }, message);
      break;
  }
};
