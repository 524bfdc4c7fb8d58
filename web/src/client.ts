// The page's handle on the engine worker: promise-based requests, load progress, and generations as a
// stream of callbacks. Each generated token is acknowledged as soon as it arrives (before it is drawn), so
// the worker computes the next token while the page draws this one, and never runs more than one ahead.
import type { ChatRequest } from './protocol-chat';
import type { DoneReason, EngineReady, ErrorReport, ExtendRun, FromWorker, ReplyTo, RequestFields, RequestType, SamplerSettings, ToWorker } from './protocol';

/** A request the worker answered with an error; `report` is meant for a person. */
export class EngineError extends Error {
  constructor(readonly report: ErrorReport) {
    super(report.detail ? `${report.title}: ${report.detail}` : report.title);
  }
}

export type TokenEvent = Extract<FromWorker, { type: 'token' }>;
export type StartedEvent = Extract<FromWorker, { type: 'started' }>;
export interface DoneEvent {
  reason: DoneReason;
  count: number;
  elapsedMs: number;
  error?: ErrorReport;
}

export interface GenerationHandlers {
  started(event: StartedEvent): void;
  token(event: TokenEvent): void;
  done(event: DoneEvent): void;
}

export interface GenerationHandle {
  readonly gen: number;
  stop(): void;
}

export type LoadProgress = Extract<FromWorker, { type: 'progress' }>;
type MeasureProgress = Extract<FromWorker, { type: 'measure-progress' }>;

/** The requests that report progress before their reply, and how a caller hears it. */
interface ProgressListeners {
  load: (p: LoadProgress) => void;
  'measure-heads': (completed: number, total: number) => void;
  patch: (completed: number, total: number) => void;
}
type ProgressOf<K extends RequestType> = K extends keyof ProgressListeners ? ProgressListeners[K] : never;
/** A request's fields, left out where it has none. */
type FieldsArgument<K extends RequestType> = {} extends RequestFields<K> ? [fields?: RequestFields<K>] : [fields: RequestFields<K>];

type Pending = { resolve(value: unknown): void; reject(error: unknown): void; progress?: (m: LoadProgress | MeasureProgress) => void };

export class EngineClient {
  private readonly worker: Worker;
  private nextReq = 1;
  private nextGen = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly generations = new Map<number, { handlers: GenerationHandlers; stopped: boolean }>();
  readonly ready: Promise<EngineReady>;

  constructor() {
    this.worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name: 'glassbox-engine' });
    this.ready = new Promise((resolve, reject) => {
      this.worker.addEventListener('message', (event: MessageEvent<FromWorker>) => {
        const m = event.data;
        if (m.type === 'ready') {
          const { formats, samplerDefaults, build, version, threaded, threads, largestUpload } = m;
          resolve({ formats, samplerDefaults, build, version, threaded, threads, largestUpload });
        } else if (m.type === 'fatal') reject(new EngineError(m.error));
      });
      this.worker.addEventListener('error', (event) => {
        reject(new EngineError({ title: 'The engine worker failed to start', detail: event.message || 'The browser could not run the worker script.' }));
      });
    });
    this.ready.catch(() => {}); // observed by the page
    this.worker.addEventListener('message', (event: MessageEvent<FromWorker>) => this.receive(event.data));
  }

  private send(message: ToWorker) {
    this.worker.postMessage(message);
  }

  /**
   * Asks the worker; the reply's type is the one protocol.ts pairs with `type` (Replies). `progress` hears
   * the requests that report it (load, measure-heads, patch).
   */
  request<K extends RequestType>(type: K, ...[fields, progress]: [...FieldsArgument<K>, ProgressOf<K>?]): Promise<ReplyTo<K>> {
    const req = this.nextReq++;
    const listener = progress as ((...args: unknown[]) => void) | undefined;
    const hear = listener && ((m: LoadProgress | MeasureProgress) => (m.type === 'progress' ? listener(m) : listener(m.completed, m.total)));
    return new Promise<ReplyTo<K>>((resolve, reject) => {
      this.pending.set(req, { resolve: resolve as (v: unknown) => void, reject, progress: hear });
      this.send({ ...fields, type, req } as ToWorker);
    });
  }

  private receive(m: FromWorker) {
    switch (m.type) {
      case 'progress':
      case 'measure-progress':
        this.pending.get(m.req)?.progress?.(m);
        break;
      case 'reply': {
        const pending = this.pending.get(m.req);
        if (!pending) break;
        this.pending.delete(m.req);
        if (m.ok) pending.resolve(m.value);
        else pending.reject(new EngineError(m.error));
        break;
      }
      case 'started':
        this.generations.get(m.gen)?.handlers.started(m);
        break;
      case 'token': {
        const g = this.generations.get(m.gen);
        if (!g) break;
        if (!g.stopped && !m.end) this.send({ type: 'ack', gen: m.gen, index: m.index });
        g.handlers.token(m);
        break;
      }
      case 'done': {
        const g = this.generations.get(m.gen);
        if (!g) break;
        this.generations.delete(m.gen);
        g.handlers.done({ reason: m.reason, count: m.count, elapsedMs: m.elapsedMs, error: m.error });
        break;
      }
    }
  }

  /** Cancels the load under way: its promise rejects with a 'cancelled' report, and the model before stays. */
  /** Stops the activation patching under way (its request then fails with "cancelled"). */
  cancelPatching() {
    this.send({ type: 'patch-cancel' });
  }

  cancelLoad() {
    this.send({ type: 'cancel-load' });
  }

  /** With `chat`, the reply to a conversation (protocol-chat.ts) rather than a continuation of `prompt`. */
  /** With `extend`, a continuation of the run shown (a Step after a generation: protocol.ts's ExtendRun). */
  generate(prompt: string, sampler: SamplerSettings, maxTokens: number, topK: number, handlers: GenerationHandlers, chat?: ChatRequest, extend?: ExtendRun): GenerationHandle {
    const gen = this.nextGen++;
    const state = { handlers, stopped: false };
    this.generations.set(gen, state);
    this.send({ type: 'generate', gen, prompt, sampler, maxTokens, topK, chat, extend });
    return {
      gen,
      stop: () => {
        if (state.stopped) return;
        state.stopped = true;
        this.send({ type: 'stop', gen });
      },
    };
  }
}
