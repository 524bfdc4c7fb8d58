// The page: wires the views to the engine worker. The main thread only draws; every model operation is a
// message to the worker (client.ts).
import { EngineClient, EngineError } from './client';
import type { EngineReady, ErrorReport, LoadResult, ModelSource } from './protocol';
import { createTestHook, type GenerationRecord } from './test-hook';
import { byId, el } from './ui/text';
import type { ChatMessage } from './protocol-chat';
import { AttentionView } from './views/attention';
import { ChatView } from './views/chat';
import { SamplingControls } from './views/controls';
import { HubPanel } from './views/hub-panel';
import { fetchCatalog, ModelPanel } from './views/model-panel';
import { NextTokenView, type StepDistribution } from './views/next-token';
import { OutputView } from './views/output';
import { StatusPill } from './views/status';
import { TokensView } from './views/tokens';
import { mountInside } from './inside-page';
import { mountSeeInside } from './see-inside-page';
import { readHash, writeHash } from './ui/hash-state';
import { revealOnNarrow } from './ui/reveal';

const TOP_CANDIDATES = 10;

const client = new EngineClient();
const status = new StatusPill(byId('status'));
const panel = new ModelPanel();
const hub = new HubPanel(byId('hub-list'));
const controls = new SamplingControls(byId('sampling'), byId('sampling-hint'));
const tokens = new TokensView(byId('tokens'), byId('token-summary'));
const output = new OutputView(byId('output'), byId('output-meta'), byId('stats'), byId<HTMLInputElement>('show-boundaries'));
const nextToken = new NextTokenView(byId('next-token'));
const chat = new ChatView(document.querySelector('.prompt-card')!); // for models with a chat template (views/chat.ts)
const attention = new AttentionView(byId('attention'), byId('attention-controls'), (layer, head) => client.attention(layer, head));
const hook = createTestHook(
  (layer, head) => client.attention(layer, head),
  () => attention.drawn,
  () => client.memory(),
);

const prompt = byId<HTMLTextAreaElement>('prompt');
const generateButton = byId<HTMLButtonElement>('generate');
const stopButton = byId<HTMLButtonElement>('stop');
const generateError = byId('generate-error');

let model: LoadResult | null = null;
let modelSource: ModelSource | null = null;
let loadAttempt = 0;
let loading = false; // a model is on its way: Generate and Step wait for it (or for Cancel)
let generation: ReturnType<EngineClient['generate']> | null = null;
let steps: StepDistribution[] = [];

const reportOf = (error: unknown): ErrorReport =>
  error instanceof EngineError ? error.report : { title: 'Something went wrong', detail: error instanceof Error ? error.message : String(error) };

function updateButtons() {
  generateButton.disabled = !model || generation !== null || loading;
  stopButton.disabled = generation === null;
  seeInside.control.stepButton.disabled = !model || generation !== null || loading;
  chat.setBusy(!model || generation !== null || loading);
}

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
  generation?.stop();
  loading = true; // Generate waits: text from the old model would be wiped when the new one arrives
  updateButtons();
  status.set('loading', `Loading ${source.label}…`);
  panel.showError(null);
  panel.showPairing(null);
  panel.showProgress(source.label, 0, null);
  try {
    const result = await client.load(source, (p) => {
      if (attempt !== loadAttempt) return;
      panel.showProgress(p.name, p.loaded, p.total);
      hub.showProgress(p.loaded, p.total);
    });
    if (attempt !== loadAttempt) return;
    model = result;
    modelSource = source;
    panel.showLoaded(source);
    panel.showInfo(result.info);
    panel.describe(result, source);
    panel.showPairing(result);
    controls.setContextLength(result.info.contextLength);
    tokens.setContextLength(result.info.contextLength);
    chat.modelLoaded(result);
    attention.setModel(result.info.layers, result.info.heads, result.info.kvHeads);
    inside.modelLoaded(result.info); // part-2 views (inside-page.ts)
    seeInside.modelLoaded(); // part-1 views (see-inside-page.ts)
    if (hook.loads === 0) restoreHashState(result.info);
    output.empty();
    nextToken.empty();
    status.set('ready', `${result.label} · ready`);
    hook.info = result.info;
    hook.modelLabel = result.label;
    hook.loads += 1;
    retokenize();
  } catch (error) {
    if (attempt !== loadAttempt) return;
    hook.failedLoads += 1;
    if (modelSource) panel.showLoaded(modelSource);
    panel.showError(reportOf(error), model ? `${model.label} is still loaded: you can keep generating with it.` : undefined);
    status.set(model ? 'ready' : 'error', model ? `${model.label} · ready` : 'No model loaded');
  } finally {
    if (attempt === loadAttempt) {
      panel.hideProgress();
      loading = false;
    }
    updateButtons();
    hook.changed();
  }
}

panel.onLoad = (source) => void load(source);

// --- the hub catalog (views/hub-panel.ts, worker/hub-cache.ts): what the browser keeps, after every change ----

async function refreshHub() {
  try {
    hub.setCached(await client.hubCached(hub.urls));
  } catch (error) {
    panel.showError(reportOf(error));
  }
  hook.hubRefreshes += 1;
  hook.changed();
}

hub.onLoad = (entry, url, sha256) => {
  hub.setBusy(entry.id);
  void load({ kind: 'hub', label: entry.name, url, sha256 }).finally(() => {
    hub.setBusy(null);
    void refreshHub();
  });
};
hub.onCancel = () => client.cancelLoad();
hub.onDelete = (url) => void client.hubDelete(url).then(refreshHub, (error: unknown) => panel.showError(reportOf(error)));
panel.onCancel = () => client.cancelLoad(); // the load answers 'cancelled' and the model before stays

// --- tokenization as the user types: one request in flight, the latest text next -------------------------

let tokenizing = false;
let tokenizeAgain = false;

async function retokenize() {
  if (!model) return;
  if (tokenizing) {
    tokenizeAgain = true;
    return;
  }
  tokenizing = true;
  do {
    tokenizeAgain = false;
    const text = prompt.value;
    try {
      const spans = await client.tokenize(text);
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

let nextTokenFrame = 0;
let nextTokenTimer = 0;
let followedAt = 0;
// While tokens stream faster than FOLLOW_MS apart, the views that follow the newest step (the next-token
// panel, the sampling pipeline, the step control) are redrawn every FOLLOW_MS rather than every frame: each
// redraw lays out and paints several cards, and at 100+ tokens/s doing it every frame kept the main thread
// busy (tests/browser/usability.test.mjs measures its longest task).
const FOLLOW_MS = 100;

// The attention view follows a running generation: first LIVE_ATTENTION_MS after Generate (a short
// generation is done by then and simply shows its attention at the end), then each time the pause since the
// last refresh is both LIVE_ATTENTION_MS and LIVE_ATTENTION_COST times what that refresh cost. Generation
// waits while the worker reads the trace and the page draws it (about 0.1 s for stories260K's 511 tokens),
// so refreshes take at most about a tenth of its time. Out of sight, the view is not refreshed at all.
const LIVE_ATTENTION_MS = 500;
const LIVE_ATTENTION_COST = 9;
let liveAttentionBusy = false;
let liveAttentionDue = 0;
let attentionInSight = true;
new IntersectionObserver((entries) => (attentionInSight = entries.some((e) => e.isIntersecting))).observe(byId('attention'));

function refreshAttentionLive() {
  if (liveAttentionBusy || performance.now() < liveAttentionDue || !attentionInSight) return;
  liveAttentionBusy = true;
  void attention.refresh(true).finally(() => {
    liveAttentionBusy = false;
    liveAttentionDue = performance.now() + Math.max(LIVE_ATTENTION_MS, LIVE_ATTENTION_COST * attention.refreshMs);
  });
}

function generate(only?: { maxTokens?: number; chat?: ChatMessage[] }) {
  if (!model || generation || loading) return;
  const { sampler, maxTokens: chosenMax } = controls.value;
  const maxTokens = only?.maxTokens ?? chosenMax;
  const text = only?.chat ? only.chat[only.chat.length - 1].content : prompt.value; // a chat: the new message
  showGenerateError(null);
  output.begin(text);
  nextToken.empty();
  attention.clear('Generating… the attention shows up here every so often while the model writes, in full when it stops.');
  liveAttentionDue = performance.now() + LIVE_ATTENTION_MS;
  steps = [];
  const record: GenerationRecord = { prompt: text, promptIds: [], ids: [], text, running: true, engineMs: 0, reason: null, error: null, tokensWhenStopClicked: null };
  hook.last = record;
  hook.generations += 1;
  status.set('generating', `${model.label} · generating`);
  inside.generationStarted(); // part-2 views (inside-page.ts)
  generation = client.generate(text, sampler, maxTokens, TOP_CANDIDATES, {
    started(event) {
      record.promptIds = event.promptIds;
      output.started(event.promptIds.length);
      seeInside.generationStarted(event.promptIds, sampler);
      if (only?.chat) chat.started(event);
    },
    token(event) {
      output.token(event);
      if (only?.chat) chat.token(event);
      record.ids.push(event.id);
      record.engineMs += event.stepMs;
      steps.push({ index: event.index, chosen: event.id, chosenPiece: event.piece, top: event.top });
      seeInside.token(event);
      if (!event.end) refreshAttentionLive();
      if (!nextTokenFrame && !nextTokenTimer) {
        // The views follow the newest step (or stay on a pinned one), in a frame at most every FOLLOW_MS.
        nextTokenTimer = window.setTimeout(() => {
          nextTokenTimer = 0;
          nextTokenFrame = requestAnimationFrame(() => {
            nextTokenFrame = 0;
            followedAt = performance.now();
            seeInside.tokenDrawn();
          });
        }, Math.max(0, followedAt + FOLLOW_MS - performance.now()));
      }
    },
    done(event) {
      output.end(event);
      generation = null;
      record.running = false;
      record.reason = event.reason;
      record.error = event.error ?? null;
      record.text = output.text;
      if (only?.chat) chat.done(event);
      else if (event.error) showGenerateError(event.error);
      if (!loading) status.set('ready', `${model?.label ?? 'model'} · ready`); // a load stopped it: the pill says so
      updateButtons();
      seeInside.generationDone(); // the views show the selected (or newest) step
      restoreHashPosition();
      // Focus left on a button that was disabled goes back where the keyboard came from: Step for a step.
      if (document.activeElement === stopButton || document.activeElement === document.body) (only?.chat ? chat : only ? seeInside.control.stepButton : generateButton).focus();
      // Without a new token the engine still holds the previous generation's trace: show none.
      if (event.count > 0) void attention.refresh();
      else attention.clear();
      inside.generationDone(event.count); // part-2 views (inside-page.ts)
      hook.changed();
    },
  }, only?.chat ? { messages: only.chat } : undefined);
  updateButtons();
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
  if (!generation) return;
  if (hook.last) hook.last.tokensWhenStopClicked = hook.last.ids.length;
  generation.stop();
});

// --- see inside, part 1: one current step across the views, the pipeline, attention step by step, the logit
// lens, export, and the URL's hash (see-inside-page.ts, views/{pipeline,attention-steps,logit-lens,step-control}.ts)
const seeInside = mountSeeInside(client, attention, hook, {
    selected(position, step) {
      tokens.mark(position);
      const promptLength = hook.last?.promptIds.length ?? 0;
      output.mark(position >= promptLength ? position - promptLength : -1);
      if (step) nextToken.show(step, step.index === steps.length - 1);
      else if (position >= 0 && !generation) nextToken.empty();
      if (seeInside.current.pinned || !generation) saveHash(); // not once a frame while following a generation
    },
    step: stepOnce,
});
tokens.onSelect = (position) => seeInside.current.select(position);
output.onSelect = (index) => {
  seeInside.current.select((hook.last?.promptIds.length ?? 0) + index);
  revealOnNarrow(byId('next-heading').closest('section')!); // on a phone, the distribution it came from
};

/** Step: exactly one more token, continuing the text shown (prompt and output) with the same sampler. */
function stepOnce() {
  if (!model || generation || loading) return;
  if (hook.last && output.generated && hook.last.prompt === prompt.value) {
    prompt.value = output.text;
    void retokenize();
  }
  generate({ maxTokens: 1 });
}

// The URL's hash keeps the prompt, the sampler, the attention's layer and head and the selected position.
const hashState = readHash();
let hashPositionPending = hashState.position;
if (hashState.prompt !== undefined) prompt.value = hashState.prompt;

function saveHash() {
  const { sampler, maxTokens } = controls.value;
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
    position: seeInside.current.pinned ? seeInside.current.position : undefined,
  });
}

function restoreHashState(info: { layers: number; heads: number }) {
  const { temperature, topK, topP, seed, maxTokens, layer, head } = hashState;
  controls.set(Object.fromEntries(Object.entries({ temperature, topK, topP, seed, maxTokens }).filter(([, v]) => v !== undefined)));
  if (layer !== undefined && head !== undefined && layer < info.layers && head < info.heads) void attention.select(layer, head);
}

function restoreHashPosition() {
  if (hashPositionPending === undefined || hashPositionPending > seeInside.current.last) return;
  seeInside.current.select(hashPositionPending);
  hashPositionPending = undefined;
}

prompt.addEventListener('input', saveHash);
byId('sampling').addEventListener('input', saveHash);
const viewChanged = attention.onView;
attention.onView = (layer, head) => {
  viewChanged(layer, head);
  saveHash();
};

// --- see inside, part 2: model view, head view, head statistics and roles, ablation, positions, anatomy ------
// All of it lives in inside-page.ts and views/{model-view,head-view,head-table,ablation,positions,anatomy}.ts;
// main.ts only tells it when a model loads and when a generation starts and ends.
const inside = mountInside(client, attention, hook, prompt);

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
  hook.formats = ready.formats;
  hook.samplerDefaults = ready.samplerDefaults;
  hook.build = ready.build;
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
