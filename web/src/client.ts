// The page's handle on the engine worker: promise-based requests, load progress, and generations as a
// stream of callbacks. Each generated token is acknowledged as soon as it arrives (before it is drawn), so
// the worker computes the next token while the page draws this one, and never runs more than one ahead.
import type { ChatRequest } from './protocol-chat';
import type { InsideRequest } from './protocol-inside';
import type { SeeInsideRequest } from './protocol-see-inside';
import type {
  AttentionTrace,
  CachedState,
  DoneReason,
  EngineReady,
  ErrorReport,
  FromWorker,
  LoadResult,
  MemoryReport,
  ModelSource,
  SamplerSettings,
  TokenSpan,
  ToWorker,
} from './protocol';

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

type Progress = Extract<FromWorker, { type: 'progress' }>;
type Pending = { resolve(value: unknown): void; reject(error: unknown): void; progress?: (p: Progress) => void };
type Request = ToWorker extends infer M ? (M extends { req: number } ? Omit<M, 'req'> : never) : never;

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

  private request<T>(message: Request, progress?: (p: Progress) => void): Promise<T> {
    const req = this.nextReq++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(req, { resolve: resolve as (v: unknown) => void, reject, progress });
      this.send({ ...message, req } as ToWorker);
    });
  }

  private receive(m: FromWorker) {
    switch (m.type) {
      case 'progress':
        this.pending.get(m.req)?.progress?.(m);
        break;
      case 'measure-progress':
        this.insideProgress.get(m.req)?.(m.completed, m.total);
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

  load(source: ModelSource, progress: (p: Progress) => void): Promise<LoadResult> {
    return this.request<LoadResult>({ type: 'load', source }, progress);
  }

  /** Cancels the load under way: its promise rejects with a 'cancelled' report, and the model before stays. */
  cancelLoad() {
    this.send({ type: 'cancel-load' });
  }

  tokenize(text: string): Promise<TokenSpan[]> {
    return this.request<TokenSpan[]>({ type: 'tokenize', text });
  }

  attention(layer: number, head: number): Promise<AttentionTrace> {
    return this.request<AttentionTrace>({ type: 'attention', layer, head });
  }

  memory(): Promise<MemoryReport> {
    return this.request<MemoryReport>({ type: 'memory' });
  }

  /** What the browser keeps of each hub URL (worker/hub-cache.ts); a URL it keeps nothing of is absent. */
  hubCached(urls: string[]): Promise<Record<string, CachedState>> {
    return this.request<Record<string, CachedState>>({ type: 'hub-cached', urls });
  }

  /** Deletes the browser's copy of a hub URL, finished or partial. */
  hubDelete(url: string): Promise<void> {
    return this.request<void>({ type: 'hub-delete', url });
  }

  // --- the part-2 inspection views (protocol-inside.ts) ---
  private readonly insideProgress = new Map<number, (completed: number, total: number) => void>();

  /** A request of the part-2 views; `progress` hears measure-heads' progress. */
  inside<T>(message: Extract<Request, { type: InsideRequest['type'] }>, progress?: (completed: number, total: number) => void): Promise<T> {
    const req = this.nextReq;
    if (progress) this.insideProgress.set(req, progress);
    return this.request<T>(message).finally(() => this.insideProgress.delete(req));
  }

  /** A request of the part-1 views (protocol-see-inside.ts). */
  seeInside<T>(message: Extract<Request, { type: SeeInsideRequest['type'] }>): Promise<T> {
    return this.request<T>(message);
  }

  /** With `chat`, the reply to a conversation (protocol-chat.ts) rather than a continuation of `prompt`. */
  generate(prompt: string, sampler: SamplerSettings, maxTokens: number, topK: number, handlers: GenerationHandlers, chat?: ChatRequest): GenerationHandle {
    const gen = this.nextGen++;
    const state = { handlers, stopped: false };
    this.generations.set(gen, state);
    this.send({ type: 'generate', gen, prompt, sampler, maxTokens, topK, chat });
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
