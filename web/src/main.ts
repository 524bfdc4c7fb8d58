// The page: wires the views to the engine worker. The main thread only draws; every model operation is a
// message to the worker (client.ts).
import { EngineClient, EngineError } from './client';
import type { EngineReady, ErrorReport, ModelSource } from './protocol';
import { installTestHook } from './test-hook';
import { createPageStore, isGenerating, type GenerationRecord } from './state/page-state';
import { byId, el } from './ui/text';
import type { ChatMessage } from './protocol-chat';
import { AttentionView } from './views/attention';
import { ChatView } from './views/chat';
import { SamplingControls } from './views/controls';
import { HubPanel } from './views/hub-panel';
import { SavedPanel } from './views/saved-panel';
import { deleteSaved, listSaved, openSaved, SavedModelError } from './saved-models';
import { fetchCatalog, ModelLoader } from './views/model-loader';
import { NextTokenView } from './views/next-token';
import { OutputView } from './views/output';
import { StatusPill } from './views/status';
import { TokensView } from './views/tokens';
import { mountEncoderPage } from './encoder-page';
import { mountAttentionLab } from './attention-lab';
import { mountCircuits } from './circuits-page';
import { mountModelFlow } from './model-flow';
import { mountModelInspector } from './model-inspector';
import { mountStepInspector } from './step-inspector';
import { mountTrainLab } from './train-lab';
import { readHash, writeHash } from './ui/hash-state';
import { revealOnNarrow } from './ui/reveal';
import { FrameThrottle, LiveRefresh } from './ui/throttle';

const TOP_CANDIDATES = 10;

const client = new EngineClient();
const store = createPageStore(); // the page's one state (state/page-state.ts)
const status = new StatusPill(byId('status'));
const panel = new ModelLoader();
const hub = new HubPanel(byId('hub-list'));
const controls = new SamplingControls(byId('sampling'), byId('sampling-hint'));
const tokens = new TokensView(byId('tokens'), byId('token-summary'));
const output = new OutputView(byId('output'), byId('output-meta'), byId('stats'), byId<HTMLInputElement>('show-boundaries'));
const nextToken = new NextTokenView(byId('next-token'));
const chat = new ChatView(document.querySelector('.prompt-card')!); // for models with a chat template (views/chat.ts)
const attention = new AttentionView(byId('attention'), byId('attention-controls'), (layer, head) => client.request('attention', { layer, head }));

const prompt = byId<HTMLTextAreaElement>('prompt');
const generateButton = byId<HTMLButtonElement>('generate');
const stopButton = byId<HTMLButtonElement>('stop');
const generateError = byId('generate-error');

let loadAttempt = 0; // the newest load's ticket: answers to an older one are dropped
let generation: ReturnType<EngineClient['generate']> | null = null; // the running generation's handle (Stop)

const reportOf = (error: unknown): ErrorReport =>
  error instanceof EngineError || error instanceof SavedModelError ? error.report : { title: 'Something went wrong', detail: error instanceof Error ? error.message : String(error) };

function updateButtons() {
  const { model, loading } = store.state;
  const generating = isGenerating(store.state);
  generateButton.disabled = !model || generating || loading;
  stopButton.disabled = !generating;
  stepInspector.control.stepButton.disabled = !model || generating || loading;
  chat.setBusy(!model || generating || loading);
}
store.subscribe(updateButtons, ['model', 'loading', 'generation']);

function showGenerateError(report: ErrorReport | null) {
  generateError.hidden = !report;
  generateError.replaceChildren();
  if (!report) return;
  const title = document.createElement('strong');
  title.className = 'notice-title';
  title.textContent = report.title;
  generateError.append(title);
  if (report.detail) generateError.append(el('span', 'notice-detail', report.detail));
  if (report.advice) generateError.append(el('span', 'notice-advice', report.advice));
}

// --- models -----------------------------------------------------------------------------------------------

async function load(source: ModelSource) {
  const attempt = ++loadAttempt;
  let regenerate = false;
  generation?.stop();
  store.set({ loading: true }); // Generate waits: text from the old model would be wiped when the new one arrives
  status.set('loading', `Loading ${source.label}…`);
  panel.showError(null);
  panel.showPairing(null);
  panel.showProgress(source.label, 0, null);
  try {
    const result = await client.request('load', { source }, (p) => {
      if (attempt !== loadAttempt) return;
      panel.showProgress(p.name, p.loaded, p.total);
      hub.showProgress(p.loaded, p.total);
    });
    if (attempt !== loadAttempt) return;
    const firstLoad = store.state.loads === 0;
    store.set({ model: result, modelSource: source });
    panel.showLoaded(source);
    panel.showInfo(result.info);
    panel.describe(result, source);
    panel.showPairing(result);
    encoderPage.modelLoaded(result.info); // encoder-page.ts: an encoder's tasks, or the decoder's cards
    if (!result.info.encoder) {
      controls.setContextLength(result.info.contextLength);
      tokens.setContextLength(result.info.contextLength);
      chat.modelLoaded(result);
      attention.setModel(result.info.layers, result.info.heads, result.info.kvHeads);
      modelInspector.modelLoaded(result.info); // model-inspector.ts
      stepInspector.modelLoaded(); // step-inspector.ts
      if (firstLoad) restoreHashState(result.info);
      output.empty();
      nextToken.empty();
    }
    trainLab.modelLoaded(!result.info.encoder);
    status.set('ready', `${result.label} · ready`);
    store.set({ loads: store.state.loads + 1 });
    if (!result.info.encoder) retokenize();
    // A shared link that names a position: its text is generated again once loaded (the same prompt, sampler
    // and seed give the same tokens), and the position is selected when it ends (restoreHashPosition).
    regenerate = firstLoad && !result.info.encoder && hashPositionPending !== undefined;
  } catch (error) {
    if (attempt !== loadAttempt) return;
    store.set({ failedLoads: store.state.failedLoads + 1 });
    const { model, modelSource } = store.state;
    if (modelSource) panel.showLoaded(modelSource);
    panel.showError(reportOf(error), model ? `${model.label} is still loaded: you can keep ${model.info.encoder ? 'using' : 'generating with'} it.` : undefined);
    status.set(model ? 'ready' : 'error', model ? `${model.label} · ready` : 'No model loaded');
  } finally {
    if (attempt === loadAttempt) {
      panel.hideProgress();
      store.set({ loading: false });
      if (regenerate) generate();
    }
  }
}

panel.onLoad = (source) => void load(source);

// --- the hub catalog (views/hub-panel.ts, worker/hub-cache.ts): what the browser keeps, after every change ----

async function refreshHub() {
  try {
    hub.setCached(await client.request('hub-cached', { urls: hub.urls }));
  } catch (error) {
    panel.showError(reportOf(error));
  }
  store.set({ hubRefreshes: store.state.hubRefreshes + 1 });
}

hub.onLoad = (entry, url, sha256) => {
  hub.setBusy(entry.id);
  void load({ kind: 'hub', label: entry.name, url, sha256 }).finally(() => {
    hub.setBusy(null);
    void refreshHub();
  });
};
hub.onCancel = () => client.cancelLoad();
hub.onDelete = (url) => void client.request('hub-delete', { url }).then(refreshHub, (error: unknown) => panel.showError(reportOf(error)));
panel.onCancel = () => client.cancelLoad(); // the load answers 'cancelled' and the model before stays

// --- models saved in this browser by the training lab (saved-models.ts, views/saved-panel.ts) ---------------

const saved = new SavedPanel(byId('saved-list'), byId('saved-empty'));

async function refreshSaved() {
  try {
    saved.show(await listSaved());
  } catch (error) {
    saved.unavailable(reportOf(error).title); // no storage here: the lab's Save says why when pressed
  }
}

// A saved model loads as a dropped file does: the same path, so every view follows.
saved.onLoad = (name) =>
  void openSaved(name).then(
    (model) => load({ kind: 'files', label: name, model }),
    (error: unknown) => panel.showError(reportOf(error)),
  );
saved.onDelete = (name) => void deleteSaved(name).then(refreshSaved, (error: unknown) => panel.showError(reportOf(error)));
void refreshSaved();

// --- tokenization as the user types: one request in flight, the latest text next -------------------------

let tokenizing = false;
let tokenizeAgain = false;

async function retokenize() {
  if (!store.state.model) return;
  if (tokenizing) {
    tokenizeAgain = true;
    return;
  }
  tokenizing = true;
  do {
    tokenizeAgain = false;
    const text = prompt.value;
    try {
      const spans = await client.request('tokenize', { text });
      if (!tokenizeAgain) tokens.show(text, spans);
    } catch (error) {
      tokens.empty(reportOf(error).title);
    }
  } while (tokenizeAgain);
  tokenizing = false;
}

prompt.addEventListener('input', () => void retokenize());
prompt.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    if (!generateButton.disabled) generate();
    if (generation) stopButton.focus();
  }
});

// --- generation -------------------------------------------------------------------------------------------

// While tokens stream faster than FOLLOW_MS apart, the views that follow the newest step (the next-token
// panel, the sampling pipeline, the step control) are redrawn every FOLLOW_MS rather than every frame: each
// redraw lays out and paints several cards, and at 100+ tokens/s doing it every frame kept the main thread
// busy (tests/browser/usability.test.mjs measures its longest task). They follow the newest step, or stay
// on a pinned one.
const FOLLOW_MS = 100;
const followNewest = new FrameThrottle(FOLLOW_MS, () => stepInspector.tokenDrawn());

// The attention view follows a running generation (ui/throttle.ts): the worker reads the trace and the page
// draws it (about 0.1 s for stories260K's 511 tokens); what that cost is the view's own measure.
const liveAttention = new LiveRefresh(() => attention.refresh(true), [byId('attention')], () => attention.refreshMs);

/** `extend`: a Step continuing that generation (the same run, one token longer) rather than a new one. */
function generate(only?: { maxTokens?: number; chat?: ChatMessage[]; extend?: GenerationRecord }) {
  const { model, loading } = store.state;
  if (!model || isGenerating(store.state) || loading) return;
  const { sampler, maxTokens: chosenMax } = controls.value;
  const maxTokens = only?.maxTokens ?? chosenMax;
  const extend = only?.extend;
  const text = only?.chat ? only.chat[only.chat.length - 1].content : extend ? extend.prompt : prompt.value; // a chat: the new message
  showGenerateError(null);
  if (extend) output.resume();
  else output.begin(text);
  nextToken.empty();
  attention.clear('Generating… the attention shows up here every so often while the model writes, in full when it stops.');
  liveAttention.start();
  // The store holds this generation's record from here to its end (one runs at a time); each change replaces it.
  const record: GenerationRecord = extend
    ? { ...extend, running: true, reason: null, error: null, tokensWhenStopClicked: null }
    : { prompt: text, promptIds: [], ids: [], text, running: true, engineMs: 0, reason: null, error: null, tokensWhenStopClicked: null };
  store.set({ generation: record, generations: store.state.generations + 1 });
  const update = (change: (now: GenerationRecord) => Partial<GenerationRecord>) => {
    const now = store.state.generation ?? record;
    store.set({ generation: { ...now, ...change(now) } });
  };
  status.set('generating', `${model.label} · generating`);
  modelInspector.generationStarted(); // model-inspector.ts
  generation = client.generate(text, sampler, maxTokens, TOP_CANDIDATES, {
    started(event) {
      // A continued run keeps its prompt: the ids the worker took are the prompt and the tokens generated so far.
      if (!extend) update(() => ({ promptIds: event.promptIds }));
      if (!extend) output.started(event.promptIds.length, event.threads);
      stepInspector.generationStarted(event.promptIds, sampler, extend?.promptIds.length);
      if (only?.chat) chat.started(event);
    },
    token(event) {
      output.token(event);
      if (only?.chat) chat.token(event);
      update((now) => ({ ids: [...now.ids, event.id], engineMs: now.engineMs + event.stepMs }));
      stepInspector.token(event);
      if (!event.end) liveAttention.poke();
      followNewest.request();
    },
    done(event) {
      output.end(event);
      generation = null;
      update(() => ({ running: false, reason: event.reason, error: event.error ?? null, text: output.text }));
      if (only?.chat) chat.done(event);
      else if (event.error) showGenerateError(event.error);
      if (!store.state.loading) status.set('ready', `${store.state.model?.label ?? 'model'} · ready`); // a load stopped it: the pill says so
      stepInspector.generationDone(); // the views show the selected (or newest) step
      restoreHashPosition();
      // Focus left on a button that was disabled goes back where the keyboard came from: Step for a step.
      if (document.activeElement === stopButton || document.activeElement === document.body) (only?.chat ? chat : only ? stepInspector.control.stepButton : generateButton).focus();
      // Without a new token the engine still holds the previous generation's trace: show none.
      if (event.count > 0) void attention.refresh();
      else attention.clear();
      modelInspector.generationDone(event.count); // model-inspector.ts
    },
  }, only?.chat ? { messages: only.chat } : undefined, extend ? { ids: [...extend.promptIds, ...extend.ids], generated: extend.ids.length } : undefined);
}

/**
 * The user's thread setting: auto (each forward pass takes the threads that pay for its work, the engine's
 * rule) or a count for every pass. The output's statistics say what is in use and why.
 */
function offerThreadSetting(most: number) {
  const select = byId<HTMLSelectElement>('threads-select');
  const options = [new Option(`auto (up to ${most})`, 'auto')];
  for (let n = 1; n <= most; n++) options.push(new Option(n === 1 ? '1 thread' : `${n} threads`, String(n)));
  select.replaceChildren(...options);
  select.addEventListener('change', () => {
    const automatic = select.value === 'auto';
    void client.request('threads', { count: automatic ? most : Number(select.value), automatic }).catch((error: unknown) => panel.showError(reportOf(error)));
  });
  byId('threads-setting').hidden = false;
}

chat.onSend = (messages) => {
  generate({ chat: messages });
  return generation !== null;
};

generateButton.addEventListener('click', () => {
  generate();
  if (generation) stopButton.focus(); // Stop is what a keyboard user wants next
});
stopButton.addEventListener('click', () => {
  const last = store.state.generation;
  if (!generation || !last) return;
  store.set({ generation: { ...last, tokensWhenStopClicked: last.ids.length } });
  generation.stop();
});

// --- the step inspector: one current step across the views, the pipeline, attention step by step, the logit
// lens, export, and the URL's hash (step-inspector.ts, views/{pipeline,attention-steps,logit-lens,step-control}.ts)
const stepInspector = mountStepInspector(client, attention, store, {
    selected(position, step) {
      tokens.mark(position);
      const last = store.state.generation;
      const promptLength = last?.promptIds.length ?? 0;
      output.mark(position >= promptLength ? position - promptLength : -1);
      if (step) nextToken.show(step, step.index === (last?.ids.length ?? 0) - 1);
      else if (position >= 0 && !isGenerating(store.state)) nextToken.empty();
      if (stepInspector.current.pinned || !isGenerating(store.state)) saveHash(); // not once a frame while following a generation
    },
    step: stepOnce,
});
tokens.onSelect = (position) => stepInspector.current.select(position);
output.onSelect = (index, reveal) => {
  stepInspector.current.select((store.state.generation?.promptIds.length ?? 0) + index);
  if (reveal) revealOnNarrow(byId('next-heading').closest('section')!); // on a phone, the distribution it came from
};

/**
 * Step: exactly one more token with the sampler shown. After a generation of the prompt in the box, the same
 * run goes on (the prompt stays the prompt, the generated tokens stay generated, the engine keeps what it
 * read); otherwise it starts from the prompt, as Generate does, for one token.
 */
function stepOnce() {
  const { model, loading, generation: last, sequence } = store.state;
  if (!model || isGenerating(store.state) || loading) return;
  const continues =
    last !== null && !last.error && last.ids.length > 0 && last.prompt === prompt.value && sequence.length === last.promptIds.length + last.ids.length;
  generate({ maxTokens: 1, extend: continues ? last : undefined });
}

// The URL's hash keeps the prompt, the sampler, the attention's layer and head and the selected position.
const hashState = readHash();
let hashPositionPending = hashState.position;
if (hashState.prompt !== undefined) prompt.value = hashState.prompt;

function saveHash() {
  const { sampler, maxTokens } = controls.value;
  const { modelSource } = store.state;
  const entry = modelSource?.kind === 'url' ? panel.catalogIdOf(modelSource) : undefined;
  writeHash({
    model: entry,
    prompt: prompt.value,
    temperature: sampler.temperature,
    topK: sampler.topK,
    topP: sampler.topP,
    seed: sampler.seed,
    maxTokens,
    layer: attention.selectedLayer,
    head: attention.selectedHead,
    position: stepInspector.current.pinned ? stepInspector.current.position : undefined,
  });
}

function restoreHashState(info: { layers: number; heads: number }) {
  const { temperature, topK, topP, seed, maxTokens, layer, head } = hashState;
  controls.set(Object.fromEntries(Object.entries({ temperature, topK, topP, seed, maxTokens }).filter(([, v]) => v !== undefined)));
  if (layer !== undefined && head !== undefined && layer < info.layers && head < info.heads) void attention.select(layer, head);
}

function restoreHashPosition() {
  if (hashPositionPending === undefined || hashPositionPending > stepInspector.current.last) return;
  stepInspector.current.select(hashPositionPending);
  hashPositionPending = undefined;
}

prompt.addEventListener('input', saveHash);
byId('sampling').addEventListener('input', saveHash);
const viewChanged = attention.onView;
attention.onView = (layer, head) => {
  viewChanged(layer, head);
  saveHash();
};

// --- the model inspector: model view, head view, head statistics and roles, ablation, positions, anatomy -----
// All of it lives in model-inspector.ts and views/{heads-overview,head-view,head-table,ablation,positions,anatomy}.ts;
// main.ts only tells it when a model loads and when a generation starts and ends.
const modelInspector = mountModelInspector(client, attention, store, prompt);

// --- the whole model in one picture, along the current step (model-flow.ts) ----------------------------------
const flow = mountModelFlow(client, store, stepInspector.current);

// --- circuits: direct logit attribution and activation patching (circuits-page.ts) ---------------------------
const circuits = mountCircuits(client, store, stepInspector.current);

// --- the attention lab: exact attention against an approximation at the current step (attention-lab.ts) ------
const lab = mountAttentionLab(client, store, stepInspector.current);

// --- an encoder (BERT): fill-mask and sentence similarity in place of generation (encoder-page.ts) ----------
const encoderPage = mountEncoderPage(client, store);

// --- the training lab: train or fine-tune in the worker, then use the weights in every view (train-lab.ts) ----
const trainLab = mountTrainLab(client, load, refreshSaved);

// window.__glassbox for the browser tests (test-hook.ts): it reads the store; nothing here reads it.
installTestHook(store, {
  readAttention: (layer, head) => client.request('attention', { layer, head }),
  attentionDrawn: () => attention.drawn,
  readMemory: () => client.request('memory'),
  insideIdle: () => modelInspector.whenIdle(),
  seeInsideIdle: () => stepInspector.whenIdle(),
  rope: () => modelInspector.ropePicture(),
  headViewQuery: () => modelInspector.headViewQuery(),
  encoderIdle: () => encoderPage.whenIdle(),
  labIdle: () => lab.whenIdle(),
  flowIdle: () => flow.whenIdle(),
  circuits,
  labChoose: (kind, knobs) => lab.picker.set(kind, knobs ?? {}),
  train: { get record() { return trainLab.record; }, whenIdle: () => trainLab.whenIdle() },
});

// --- start: the engine, then the catalog's default model -----------------------------------------------

async function start() {
  let ready: EngineReady;
  try {
    ready = await client.ready;
  } catch (error) {
    status.set('error', 'The engine could not start');
    panel.showError(reportOf(error));
    return;
  }
  panel.setFormats(ready.formats);
  hub.setLimit(ready.largestUpload);
  void refreshHub();
  controls.setDefaults(ready.samplerDefaults);
  // Which build runs, and on how many threads: the threaded one needs a cross-origin isolated page (docs/hosting.md).
  byId('engine-build').textContent = ready.build;
  byId('engine-threads').textContent = ready.threaded ? `, threaded build, ${ready.threads} threads` : ', single-threaded build';
  if (ready.threaded) offerThreadSetting(ready.threads);
  store.set({ engine: ready });
  status.set('loading', 'Reading the model catalog…');
  try {
    const { entries, base } = await fetchCatalog();
    const listed = panel.setCatalog(entries, base);
    const first = entries.find((e) => e.id === hashState.model) ?? listed; // a model named in the URL's hash
    if (first) panel.loadEntry(first);
    else status.set('error', 'No model loaded');
  } catch (error) {
    panel.setCatalog([], new URL(document.baseURI));
    panel.showError({ title: 'The list of models on this site could not be read', detail: error instanceof Error ? error.message : String(error) });
    status.set('error', 'No model loaded');
  }
}

updateButtons();
void start();

if (import.meta.env.PROD && 'serviceWorker' in navigator) {
  // Keeps the page and the models it fetched for offline use; relative, so it works from any subfolder.
  navigator.serviceWorker.register('./sw.js').catch((error: unknown) => console.warn('glassbox: offline support is unavailable:', error));
}
