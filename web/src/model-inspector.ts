// The model inspector: the views of the whole model at once, wired to the worker: the model view (every
// layer x head, views/heads-overview.ts), the head view, head statistics and roles, live head ablation,
// positional encodings and the model's anatomy. main.ts mounts this once and tells it when a model loads
// and when a generation starts and ends; everything else happens here.
import type { EngineClient } from './client';
import type { ModelInfo } from './protocol';
import type { RopePicture } from './protocol-model-inspector';
import { isGenerating, type PageStore } from './state/page-state';
import { CurrentStep } from './ui/current-step';
import { byId } from './ui/text';
import { Every, LiveRefresh, LIVE_MS } from './ui/throttle';
import { nextFrame, WorkInFlight } from './ui/work-in-flight';
import { AblationPanel } from './views/ablation';
import { AnatomyView } from './views/anatomy';
import type { AttentionView } from './views/attention';
import { HeadSelection } from './views/head-selection';
import { HeadTable } from './views/head-table';
import { HeadView } from './views/head-view';
import { HeadsOverview } from './views/heads-overview';
import { LengthCostView } from './views/length-cost';
import { PositionsView } from './views/positions';

/**
 * The window of positions the model view's thumbnails and the head view show: the newest ones, or, once a
 * step is picked, a window holding it (any earlier window is one move of the step away).
 */
const BATCH_WINDOW = 64;

export function mountModelInspector(client: EngineClient, attention: AttentionView, store: PageStore, prompt: HTMLTextAreaElement) {
  const selection = new HeadSelection();
  const headsOverview = new HeadsOverview(byId('model-view'), selection);
  const headView = new HeadView(byId('head-view'));
  const headTable = new HeadTable(byId('head-table'), selection);
  const ablation = new AblationPanel(byId('ablation'), selection, [byId('ablation-badge-slot'), byId('attention-controls'), byId('ablation-heading').parentElement!]);
  const positions = new PositionsView(
    byId('positions'),
    (n, dim) => client.request('sinusoidal', { positions: n, dim }),
    (n, anglePosition, source) => client.request('rope', { positions: n, anglePosition, source }),
  );
  const anatomy = new AnatomyView(byId('anatomy'));
  // Cost against length, under the anatomy (views/length-cost.ts): measured on a button press.
  const lengthCost = new LengthCostView(byId('anatomy'), {
    plan: () => client.request('length-cost-plan'),
    measure: (attention, length, repeat) => client.request('length-cost', { attention, length, repeat }),
  });
  const current = new CurrentStep(store); // the page's one current step (ui/current-step.ts)

  // The model, the generation, the trace's extent and what the worker answered are the store's.
  const state = () => store.state;
  const info = () => state().model?.info ?? null;
  /** The loaded model, as a ticket: an answer for an older model than the one loaded now is dropped. */
  const currentModel = () => state().model;
  let measuring = false;
  let ablating = false;

  // Work in flight, so the tests can wait for quiet: the views draw in the same task as each answer, and
  // one frame later they are on screen; the RoPE picture is drawn by its own requests.
  const inFlight = new WorkInFlight(() => positions.drawn.then(nextFrame));
  const track = <T>(work: Promise<T>) => inFlight.track(work);

  function updateControls() {
    const ready = info() !== null && !isGenerating(state());
    headTable.setEnabled(ready && !measuring);
    ablation.setEnabled(ready && !ablating, state().traced > 0);
  }
  selection.onChange(updateControls);

  // --- the model view and the head view: one batch of every head ------------------------------------------
  /** The current step as a query the trace holds (the newest token is read only with the next step). */
  const stepQuery = (traced: number) => Math.max(0, Math.min(current.position, traced - 1));
  let shownQuery = -1; // the position the head view's picked query shows
  function refreshHeads() {
    const model = currentModel();
    // A picked step: the window that holds it; following the generation: the newest positions.
    const around = current.pinned && state().traced > 0 ? stepQuery(state().traced) : undefined;
    return track(
      client.request('attention-batch', { window: BATCH_WINDOW, around }).then(
        (batch) => {
          if (model !== currentModel()) return;
          store.set({ heads: batch, traced: batch.total });
          positions.setTraced(batch.total);
          if (batch.size === 0) {
            headsOverview.clear('Generate some text to see every head of the model at once.');
            headView.clear('Generate some text to see where each head of a layer looks, token by token.');
          } else {
            headsOverview.draw(batch);
            headView.show(batch);
            showStepInHeadView(batch);
          }
          updateControls();
          requestFlops(Math.max(1, batch.total));
        },
        (error: unknown) => headsOverview.clear(`The heads could not be read: ${error instanceof Error ? error.message : String(error)}`),
      ),
    );
  }

  /** The head view's query is the current step (within its window). */
  function showStepInHeadView(batch: NonNullable<ReturnType<typeof state>['heads']>) {
    const query = stepQuery(batch.total);
    if (query < batch.begin || query >= batch.begin + batch.size) return;
    shownQuery = query;
    headView.select(query - batch.begin);
  }

  // The current step moved: the head view's query and the RoPE view's real query follow it; a step outside
  // the head view's window brings the window holding it (not while a generation streams: it follows the newest).
  let stepFrame = 0;
  current.onChange(() => {
    if (stepFrame) return;
    stepFrame = requestAnimationFrame(() => {
      stepFrame = 0;
      // Following a running generation, the step moves every token: the live refresh redraws the head view,
      // and the worker's time goes to tokens (the RoPE query is read again when it ends).
      if (isGenerating(state()) && !current.pinned) return;
      const batch = state().heads;
      if (!batch || batch.size === 0) return;
      const query = stepQuery(batch.total);
      positions.setQuery(query);
      if (query === shownQuery) return;
      if (query >= batch.begin && query < batch.begin + batch.size) showStepInHeadView(batch);
      else if (!isGenerating(state())) void refreshHeads();
    });
  });
  // Picking a query in the head view (a click, or ↑/↓ along the queries) moves the shared step.
  headView.onPickQuery = (index) => {
    const batch = state().heads;
    if (!batch) return;
    shownQuery = batch.begin + index;
    current.select(batch.begin + index);
  };

  // While a generation streams, the model view and the head view follow it as the attention view does
  // (ui/throttle.ts), while either is in sight; a refresh costs the worker reading every head's window, then
  // the drawing.
  const liveHeads = new LiveRefresh(refreshHeads, [byId('model-view-card'), byId('head-view-card')]);

  // Opening a head shows it in the attention card; the keyboard stays on the model view's tile, so the next
  // X still marks a head there (and Tab goes on from where it was).
  headsOverview.onOpen = (layer, head) => {
    void attention.select(layer, head);
    byId('attention-heading').scrollIntoView({ block: 'start', behavior: 'smooth' });
  };

  // --- head statistics --------------------------------------------------------------------------------------
  headTable.onMeasure = () => {
    if (!info() || measuring) return;
    measuring = true;
    updateControls();
    const model = currentModel();
    headTable.showProgress(0, 1);
    void track(
      client
        .request('measure-heads', { prompt: prompt.value }, (completed, total) => {
          if (model === currentModel()) headTable.showProgress(completed, total);
        })
        .then(
          (result) => {
            if (model !== currentModel()) return;
            store.set({ measurement: result });
            headTable.show(result);
            headsOverview.setRoles(result.heads);
          },
          (error: unknown) => headTable.showError(`The heads could not be measured: ${error instanceof Error ? error.message : String(error)}`),
        )
        .finally(() => {
          measuring = false;
          updateControls();
        }),
    );
  };

  // --- ablation ---------------------------------------------------------------------------------------------
  ablation.onSelect = (position) => current.select(position);
  ablation.onApply = (table, meanHeads) => {
    if (ablating) return;
    ablating = true;
    updateControls();
    void track(
      client
        .request('ablate', { scales: table, meanHeads, position: state().traced > 0 ? stepQuery(state().traced) : undefined }) // measured at the current step
        .then(
          async (change) => {
            store.set({ ablation: change, ablationActive: true });
            ablation.setActive(table, meanHeads);
            ablation.showResult(change);
            await Promise.all([attention.refresh(), refreshHeads()]);
          },
          (error: unknown) => ablation.note(`The ablation could not be applied: ${error instanceof Error ? error.message : String(error)}`),
        )
        .finally(() => {
          ablating = false;
          updateControls();
        }),
    );
  };

  ablation.onReset = () => {
    if (ablating) return;
    ablating = true;
    updateControls();
    void track(
      client
        .request('clear-ablation')
        .then(
          async () => {
            store.set({ ablation: null, ablationActive: false });
            ablation.setActive(null);
            ablation.note('Every head is as trained again; the views show the model\'s own attention.');
            if (state().traced > 0) await Promise.all([attention.refresh(), refreshHeads()]);
          },
          (error: unknown) => ablation.note(`Reset failed: ${error instanceof Error ? error.message : String(error)}`),
        )
        .finally(() => {
          ablating = false;
          updateControls();
        }),
    );
  };

  // --- anatomy: FLOPs follow the sequence length, one request in flight ---------------------------------------
  let flopsBusy = false;
  let flopsWanted = 0;
  function requestFlops(n: number) {
    flopsWanted = n;
    if (flopsBusy || !info()) return;
    flopsBusy = true;
    const asked = n;
    void track(
      client
        .request('flops', { sequenceLength: asked })
        .then((flops) => {
          store.set({ flops });
          anatomy.showFlops(flops);
        })
        .catch(() => {})
        .finally(() => {
          flopsBusy = false;
          if (flopsWanted !== asked) requestAnimationFrame(() => requestFlops(flopsWanted));
        }),
    );
  }
  // Each token of the generation: the sequence grows by one. The FLOPs follow it every LIVE_MS (each
  // answer redraws the anatomy's bars: once a token was a layout and paint at 100+ tokens/s), and the heads'
  // views when they are due. Heard after the token's handler has run (a microtask), so the attention
  // view's own live refresh, asked for in that handler, goes to the worker first.
  const flopsBeat = new Every(LIVE_MS);
  let followQueued = false;
  function followGeneration() {
    followQueued = false;
    const last = state().generation;
    if (!last?.running) return;
    if (flopsBeat.due()) requestFlops(Math.max(1, last.promptIds.length + last.ids.length - 1));
    if (last.ids.length > 0) liveHeads.poke();
  }
  store.subscribe(() => {
    if (followQueued) return;
    followQueued = true;
    queueMicrotask(followGeneration);
  }, ['generation']);

  // --- what main.ts tells us ----------------------------------------------------------------------------------
  return {
    /** The model inspector's requests answered and drawn (for the browser tests). */
    whenIdle: () => inFlight.idle(),
    /** The positional-encoding view's picture (for the browser tests). */
    ropePicture: (): RopePicture | null => positions.picture,
    /** The position the head view's picked query shows (for the browser tests; -1: none drawn). */
    headViewQuery: () => shownQuery,
    modelLoaded(loaded: ModelInfo) {
      store.set({ traced: 0 });
      const model = currentModel();
      selection.setModel(loaded.layers, loaded.heads);
      headView.setModel(loaded.layers, loaded.heads);
      headsOverview.clear('Generate some text to see every head of the model at once.');
      headsOverview.setRoles(null);
      headView.clear('Generate some text to see where each head of a layer looks, token by token.');
      headTable.clear();
      ablation.setModel(loaded.layers);
      lengthCost.modelLoaded();
      store.set({ heads: null, measurement: null, ablation: null, ablationActive: false });
      positions.setTraced(0);
      updateControls();
      void track(
        client.request('inside-info').then(
          (details) => {
            if (model !== currentModel()) return;
            store.set({ anatomy: details.anatomy });
            headTable.setThresholds(details.thresholds);
            anatomy.setModel(details.anatomy);
            positions.setModel(details.positions, loaded.layers, loaded.heads);
            requestFlops(1);
          },
          () => anatomy.clear(),
        ),
      );
    },
    generationStarted() {
      liveHeads.start();
      updateControls();
    },
    generationDone(count: number) {
      if (count > 0) {
        void refreshHeads();
        if (state().ablationActive) ablation.note('This text was generated with the ablation on. Apply again to measure its effect on the new text, or Reset.');
      } else {
        updateControls();
      }
    },
  };
}
