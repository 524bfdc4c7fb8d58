// The training lab's card: pick a model (a small preset config, or the loaded model to fine-tune), a data
// set (a built-in synthetic task, the bundled corpus, or a text file of one's own) and the settings; Start,
// Pause / Resume and Stop; while it trains, the loss (train and held-out), the learning rate, each layer's
// gradient norm, tokens/s, and every head's induction score over the steps (a heat strip: the row of a head
// that becomes an induction head turns dark). Paused or done, the weights can be used as the page's model
// (every view then shows them), downloaded as GGUF, or saved in this browser (the model panel lists them).
// The page paces the run one step per request (protocol-train.ts), so Pause and Stop land between steps.
import type { ErrorReport } from '../protocol';
import type { SyntheticTaskName, TrainBegun, TrainData, TrainingSettings, TrainStepped } from '../protocol-train';
import { el, inlineField } from '../ui/text';
import { heatStrip, lineChart } from './train-charts';

export interface TrainLabRequests {
  begin(config: string, data: TrainData, settings: TrainingSettings): Promise<TrainBegun>;
  step(heldOut: boolean, induction: boolean): Promise<TrainStepped>;
  gguf(name: string): Promise<Uint8Array>;
  /** Makes the bytes the page's model, as a dropped file is loaded. */
  use(bytes: Uint8Array, name: string): Promise<void>;
  download(bytes: Uint8Array, name: string): void;
  /** Keeps the bytes in this browser; resolves to the name they were saved as (a free variant of `name`). */
  save(bytes: Uint8Array, name: string): Promise<string>;
  /** The bundled corpus's text, or null when this site has none. */
  corpus(): Promise<string | null>;
}

/** The model choices: training configs (glassbox/train.hpp's JSON) and fine-tuning the loaded model. */
const PRESETS: { id: string; label: string; config: Record<string, number | string> | null }[] = [
  // The copy task forms an induction head in this one: natively by step 2,000 of 6,000 (scripts/copy_task.py),
  // in the page by step 3,150 of 6,000 in 959 s (scripts/train-lab-in-page.mjs).
  { id: 'induction', label: '2 layers · dim 64 · 2 heads · context 192', config: { architecture: 'llama', dim: 64, layers: 2, heads: 2, kv_heads: 2, hidden_dim: 128, context: 192 } },
  { id: 'small', label: '2 layers · dim 64 · 4 heads · context 128', config: { architecture: 'llama', dim: 64, layers: 2, heads: 4, kv_heads: 4, hidden_dim: 128, context: 128 } },
  { id: 'tiny', label: '2 layers · dim 32 · 2 heads · context 128', config: { architecture: 'llama', dim: 32, layers: 2, heads: 2, kv_heads: 2, hidden_dim: 64, context: 128 } },
  { id: 'gpt2', label: 'GPT-2 blocks · 2 layers · dim 64 · 4 heads · context 128', config: { architecture: 'gpt2', dim: 64, layers: 2, heads: 4, kv_heads: 4, hidden_dim: 256, context: 128 } },
  { id: 'attn4', label: '4 layers · dim 128 · 4 heads · context 128', config: { architecture: 'llama', dim: 128, layers: 4, heads: 4, kv_heads: 4, hidden_dim: 256, context: 128 } },
  { id: 'finetune', label: 'Fine-tune the loaded model', config: null },
];

const DATA_CHOICES: { id: string; label: string }[] = [
  { id: 'copy', label: 'Copy: twelve random words, then the same twelve again' },
  { id: 'counting', label: 'Counting: 17 18 19 20 …' },
  { id: 'brackets', label: 'Bracket matching: ( [ ] ) { }' },
  { id: 'corpus', label: 'tinyshakespeare (bundled text)' },
  { id: 'file', label: 'A text file of your own…' },
];
const TASK_LENGTH: Record<SyntheticTaskName, number> = { copy: 12, counting: 8, brackets: 6 };
const SYNTHETIC_LINES = 4000;

/** Measurements (held-out loss, induction scores) per run: about this many, whatever the steps. */
const MEASUREMENTS = 40;
const COLORS = ['#4f46e5', '#d97706', '#059669', '#dc2626', '#0891b2', '#9333ea', '#65a30d', '#db2777'];

type LabState = 'idle' | 'starting' | 'running' | 'paused' | 'done' | 'error';

/** What the run has drawn so far (the browser tests read it: window.__glassbox.train). */
export interface TrainRecord {
  steps: number;
  layers: number;
  heads: number;
  losses: number[];
  learningRates: number[];
  gradNorms: number[];
  layerGradNorms: number[][];
  heldOut: { step: number; loss: number }[];
  induction: { step: number; scores: number[] }[];
  tokens: number;
  seconds: number;
  tokensPerSecond: number[]; // each step's, as the engine timed it
}

function numberInput(value: number, min: number, step: string): HTMLInputElement {
  const input = el('input');
  input.type = 'number';
  input.value = String(value);
  input.min = String(min);
  input.step = step;
  return input;
}

function select(choices: { id: string; label: string }[]): HTMLSelectElement {
  const s = el('select');
  s.append(...choices.map((c) => new Option(c.label, c.id)));
  return s;
}

export class TrainLabView {
  readonly root = el('div', 'train-lab');
  readonly model = select(PRESETS);
  readonly data = select(DATA_CHOICES);
  private readonly file = el('input');
  readonly steps = numberInput(6000, 1, '1');
  readonly batch = numberInput(8, 1, '1');
  readonly learningRate = numberInput(0.003, 0, 'any');
  readonly warmup = numberInput(300, 0, '1');
  readonly startButton = el('button', 'button primary train-start', 'Start');
  readonly pauseButton = el('button', 'button train-pause', 'Pause');
  readonly stopButton = el('button', 'button train-stop', 'Stop');
  readonly useButton = el('button', 'button train-use', 'Use this model');
  readonly downloadButton = el('button', 'button train-download', 'Download .gguf');
  readonly saveButton = el('button', 'button train-save', 'Save in this browser');
  private readonly status = el('p', 'train-status muted');
  private readonly stats = el('p', 'train-stats');
  private readonly notice = el('div', 'notice error');
  private readonly charts = el('div', 'train-charts');
  private state: LabState = 'idle';
  private pauseAsked = false;
  private hasModel = false;
  private userText: { name: string; text: string } | null = null;
  record: TrainRecord | null = null;
  private idle: Promise<void> = Promise.resolve();

  constructor(parent: HTMLElement, private readonly requests: TrainLabRequests) {
    this.file.type = 'file';
    this.file.accept = '.txt,text/plain';
    this.file.className = 'train-file';
    this.file.hidden = true;
    this.file.setAttribute('aria-label', 'Your text file: one training sequence per line');
    for (const b of [this.startButton, this.pauseButton, this.stopButton, this.useButton, this.downloadButton, this.saveButton]) b.type = 'button';
    this.notice.hidden = true;
    const intro = el(
      'p',
      'muted',
      'Train a small transformer here, in this tab: backpropagation through the same forward pass the other views read, AdamW with warmup and cosine decay, clipped gradients. The copy task teaches the model to look back to where the current word stood before and copy what came next: the induction heads of Olsson et al. (2022), whose scores the strip below follows. With the first model and the copy task the loss sits on a plateau near 4 for about a thousand steps, then drops as an induction head forms (its row in the strip turns dark) around step 2,000: six or seven minutes at 20,000 tokens/s, so leave the tab open. Pause to see the model as it is in every view.',
    );
    const choose = el('div', 'train-controls');
    choose.append(inlineField('Model', this.model), inlineField('Data', this.data), this.file);
    const numbers = el('div', 'train-controls');
    numbers.append(inlineField('Steps', this.steps), inlineField('Batch', this.batch), inlineField('Learning rate', this.learningRate), inlineField('Warmup', this.warmup));
    const buttons = el('div', 'train-controls train-buttons');
    buttons.append(this.startButton, this.pauseButton, this.stopButton, this.useButton, this.downloadButton, this.saveButton);
    this.root.append(intro, choose, numbers, buttons, this.notice, this.status, this.stats, this.charts);
    parent.append(this.root);

    this.data.addEventListener('change', () => {
      this.file.hidden = this.data.value !== 'file';
      if (!this.file.hidden && !this.userText) this.file.click();
    });
    this.file.addEventListener('change', () => void this.readFile());
    this.startButton.addEventListener('click', () => void this.start());
    this.pauseButton.addEventListener('click', () => (this.state === 'paused' ? void this.resume() : (this.pauseAsked = true)));
    this.stopButton.addEventListener('click', () => this.stop());
    this.useButton.addEventListener('click', () => void this.use());
    this.downloadButton.addEventListener('click', () => void this.download());
    this.saveButton.addEventListener('click', () => void this.save());
    this.setState('idle', 'Load a model first: a run uses its tokenizer (and, to fine-tune, its weights).');
  }

  /** A model was loaded (a new one, or the lab's own weights by Use): a run needs its tokenizer. */
  modelLoaded(decoder: boolean) {
    this.hasModel = decoder;
    if (this.state === 'idle') this.setState('idle', decoder ? 'Choose a model, a data set and the settings, then Start.' : 'Training needs a decoder model (this one is an encoder).');
    else this.updateButtons();
  }

  /** Resolves when no step is being computed. */
  whenIdle(): Promise<void> {
    return this.idle;
  }

  private async readFile() {
    const file = this.file.files?.[0];
    if (!file) return;
    this.userText = { name: file.name, text: await file.text() };
    this.status.textContent = `${file.name}: ${this.userText.text.split('\n').filter((l) => l.trim()).length} lines.`;
  }

  private async dataChoice(): Promise<TrainData> {
    const id = this.data.value;
    if (id === 'copy' || id === 'counting' || id === 'brackets') {
      // Lines longer than the context are drawn again (a fine-tuned model's context is its own: no bound here).
      const preset = PRESETS.find((p) => p.id === this.model.value);
      return { kind: 'synthetic', task: id, length: TASK_LENGTH[id], lines: SYNTHETIC_LINES, seed: 1, maxTokens: preset?.config ? Number(preset.config.context) : 0 };
    }
    if (id === 'corpus') {
      const text = await this.requests.corpus();
      if (text === null) throw new Error('This site has no bundled corpus (scripts/fetch-models.sh copies it next to the models).');
      return { kind: 'text', name: 'tinyshakespeare.txt', text };
    }
    if (!this.userText) throw new Error('Choose a text file first: one training sequence per line.');
    return { kind: 'text', ...this.userText };
  }

  private settings(): Required<Pick<TrainingSettings, 'steps' | 'batch' | 'learningRate' | 'warmup' | 'context' | 'seed'>> & TrainingSettings {
    const preset = PRESETS.find((p) => p.id === this.model.value);
    return {
      steps: Math.max(1, Math.round(Number(this.steps.value))),
      batch: Math.max(1, Math.round(Number(this.batch.value))),
      learningRate: Number(this.learningRate.value),
      warmup: Math.max(0, Math.round(Number(this.warmup.value))),
      schedule: 'cosine',
      context: preset?.config ? Number(preset.config.context) : 0,
      seed: 42,
    };
  }

  private async start() {
    if (this.state === 'running' || this.state === 'starting') return;
    this.showError(null);
    this.charts.replaceChildren();
    this.stats.textContent = '';
    this.setState('starting', 'Starting: random weights, the data tokenized…');
    try {
      const preset = PRESETS.find((p) => p.id === this.model.value)!;
      const settings = this.settings();
      if (settings.warmup > settings.steps) settings.warmup = settings.steps;
      const begun = await this.requests.begin(preset.config ? JSON.stringify(preset.config) : '', await this.dataChoice(), settings);
      const { run } = begun;
      this.record = {
        steps: run.steps,
        layers: run.layers,
        heads: run.heads,
        losses: [],
        learningRates: [],
        gradNorms: [],
        layerGradNorms: [],
        heldOut: Number.isFinite(begun.heldOutLoss) ? [{ step: 0, loss: begun.heldOutLoss }] : [],
        induction: [{ step: 0, scores: begun.induction }],
        tokens: 0,
        seconds: 0,
        tokensPerSecond: [],
      };
      this.status.textContent = `${run.parameters.toLocaleString('en-US')} weights, ${begun.trainLines.toLocaleString('en-US')} training lines, ${begun.heldOutLines} held out.`;
      this.draw();
      await this.resume();
    } catch (error) {
      this.fail(error);
    }
  }

  private async resume() {
    const record = this.record;
    if (!record) return;
    this.pauseAsked = false;
    this.setState('running');
    let finished!: () => void;
    this.idle = new Promise((resolve) => (finished = resolve));
    const every = Math.max(1, Math.round(record.steps / MEASUREMENTS));
    try {
      while (record.losses.length < record.steps && !this.pauseAsked && this.state === 'running') {
        const step = record.losses.length; // the step about to run
        const measure = (step + 1) % every === 0 || step + 1 === record.steps;
        const { report, heldOutLoss, induction } = await this.requests.step(measure, measure);
        record.losses.push(report.loss);
        record.learningRates.push(report.learningRate);
        record.gradNorms.push(report.gradNorm);
        record.layerGradNorms.push(report.layerGradNorms);
        record.tokens += report.tokens;
        record.seconds += report.seconds;
        record.tokensPerSecond.push(report.tokens / Math.max(1e-9, report.seconds));
        if (heldOutLoss !== null) record.heldOut.push({ step: step + 1, loss: heldOutLoss });
        if (induction) record.induction.push({ step: step + 1, scores: induction });
        this.showStats(report.tokens / Math.max(1e-9, report.seconds));
        if (measure || step % 5 === 0) this.draw();
      }
      this.draw();
      if (record.losses.length >= record.steps) this.setState('done', 'Done: use the model in the other views, download it, or save it in this browser.');
      else if (this.state === 'running') this.setState('paused', 'Paused: the model as it is now can be used in every view, downloaded or saved in this browser. Resume goes on.');
    } catch (error) {
      this.draw();
      this.fail(error);
    } finally {
      finished();
    }
  }

  private stop() {
    if (this.state === 'running') this.pauseAsked = true;
    const record = this.record;
    if (record) record.steps = Math.max(1, record.losses.length); // what is left is not run
    if (this.state === 'paused') this.setState('done', 'Stopped: use the model in the other views, download it, or save it in this browser.');
  }

  private async gguf(): Promise<{ bytes: Uint8Array; name: string }> {
    const name = `trained-step-${this.record?.losses.length ?? 0}`;
    return { bytes: await this.requests.gguf(name), name: `${name}.gguf` };
  }

  private async use() {
    this.useButton.disabled = true;
    try {
      const { bytes, name } = await this.gguf();
      await this.requests.use(bytes, name);
      this.status.textContent = `${name} is the page's model now: every view above and below shows it.`;
    } catch (error) {
      this.showError(reportOf(error));
    } finally {
      this.updateButtons();
    }
  }

  private async download() {
    try {
      const { bytes, name } = await this.gguf();
      this.requests.download(bytes, name);
    } catch (error) {
      this.showError(reportOf(error));
    }
  }

  private async save() {
    this.saveButton.disabled = true;
    this.showError(null);
    try {
      const { bytes, name } = await this.gguf();
      const savedAs = await this.requests.save(bytes, name);
      this.status.textContent = `Saved in this browser as ${savedAs}: the Model panel's "Saved in this browser" loads it, after a reload too.`;
    } catch (error) {
      this.showError(reportOf(error));
    } finally {
      this.updateButtons();
    }
  }

  private fail(error: unknown) {
    this.showError(reportOf(error));
    this.setState(this.record && this.record.losses.length > 0 ? 'error' : 'idle', this.record && this.record.losses.length > 0 ? 'The weights are the last good ones: they can still be used or downloaded.' : '');
  }

  private showError(report: ErrorReport | null) {
    this.notice.hidden = !report;
    this.notice.replaceChildren();
    if (!report) return;
    this.notice.append(el('strong', 'notice-title', report.title));
    if (report.detail) this.notice.append(el('span', 'notice-detail', report.detail));
    if (report.advice) this.notice.append(el('span', 'notice-advice', report.advice));
  }

  private setState(state: LabState, message?: string) {
    this.state = state;
    this.root.dataset.state = state;
    if (message !== undefined) this.status.textContent = message;
    this.updateButtons();
  }

  private updateButtons() {
    const s = this.state;
    const busy = s === 'running' || s === 'starting';
    const haveWeights = this.record !== null && (s === 'paused' || s === 'done' || s === 'error');
    this.startButton.disabled = busy || !this.hasModel;
    this.startButton.textContent = this.record ? 'Start again' : 'Start';
    this.pauseButton.disabled = !(s === 'running' || s === 'paused');
    this.pauseButton.textContent = s === 'paused' ? 'Resume' : 'Pause';
    this.stopButton.disabled = !(s === 'running' || s === 'paused');
    this.useButton.disabled = !haveWeights;
    this.downloadButton.disabled = !haveWeights;
    this.saveButton.disabled = !haveWeights;
    for (const control of [this.model, this.data, this.steps, this.batch, this.learningRate, this.warmup]) control.disabled = busy;
  }

  private showStats(tokensPerSecond: number) {
    const r = this.record!;
    const step = r.losses.length;
    const last = (xs: number[]) => xs[xs.length - 1];
    const heldOut = r.heldOut.length > 0 ? ` · held-out ${r.heldOut[r.heldOut.length - 1].loss.toFixed(3)}` : '';
    this.stats.textContent = `step ${step} / ${r.steps} · loss ${last(r.losses).toFixed(3)}${heldOut} · lr ${last(r.learningRates) === 0 ? '0' : last(r.learningRates).toExponential(1)} · grad norm ${last(r.gradNorms).toFixed(2)} · ${Math.round(tokensPerSecond).toLocaleString('en-US')} tokens/s`;
    this.stats.dataset.tokensPerSecond = String(r.tokens / Math.max(1e-9, r.seconds));
  }

  private draw() {
    const r = this.record;
    if (!r) return;
    const steps = r.steps;
    const loss = lineChart(
      'Loss (nats per token)',
      [
        { name: 'train', color: COLORS[0], points: r.losses.map((y, i) => ({ x: i, y })) },
        { name: 'held-out', color: COLORS[1], points: r.heldOut.map((h) => ({ x: h.step, y: h.loss })), dots: true },
      ],
      steps,
      'loss',
    );
    const lr = lineChart('Learning rate', [{ name: 'lr', color: COLORS[2], points: r.learningRates.map((y, i) => ({ x: i, y })) }], steps, 'lr');
    const layers = Array.from({ length: r.layers }, (_, l) => ({
      name: `layer ${l}`,
      color: COLORS[l % COLORS.length],
      points: r.layerGradNorms.map((norms, i) => ({ x: i, y: norms[l] })),
    }));
    const grads = lineChart('Gradient norm per layer (before clipping)', layers, steps, 'grad');
    const labels = Array.from({ length: r.layers * r.heads }, (_, i) => `L${Math.floor(i / r.heads)}H${i % r.heads}`);
    const latest = r.induction[r.induction.length - 1];
    let best = 0;
    latest.scores.forEach((v, i) => (best = v > latest.scores[best] ? i : best));
    const strip = heatStrip(
      `Induction score of each head over the steps (now best: ${labels[best]}, ${latest.scores[best]?.toFixed(2) ?? '—'})`,
      labels,
      r.induction.map((m) => m.step),
      r.induction.map((m) => m.scores),
    );
    this.charts.replaceChildren(loss, strip, grads, lr);
  }
}

function reportOf(error: unknown): ErrorReport {
  if (error && typeof error === 'object' && 'report' in error) return (error as { report: ErrorReport }).report;
  return { title: 'The training lab stopped', detail: error instanceof Error ? error.message : String(error) };
}
