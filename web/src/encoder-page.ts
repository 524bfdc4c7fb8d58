// The page for an encoder (BERT): it reads whole texts and continues none, so generation gives way to the two
// things an encoder does for a person, fill-mask and sentence similarity (views/fill-mask.ts,
// views/similarity.ts), and to where its heads look in either text (views/encoder-attention.ts). All follow
// their text as the person types: a request goes to the worker a moment after the typing pauses, one at a
// time, the newest text next. main.ts says when a model loads; the rest of the page (the decoder's cards,
// the sampling controls) is hidden while an encoder is loaded.
import type { EngineClient } from './client';
import { EngineError } from './client';
import type { ErrorReport, ModelInfo } from './protocol';
import type { PageStore } from './state/page-state';
import { byId, el } from './ui/text';
import { EncoderAttentionView } from './views/encoder-attention';
import { WorkInFlight } from './ui/work-in-flight';
import { FillMaskView } from './views/fill-mask';
import { SimilarityView } from './views/similarity';

const TYPING_PAUSE_MS = 250; // how long typing must pause before the text is sent
const CANDIDATES = 5; // per [MASK], as the CLI's default
const BLANK = 'blank'; // the attention card's choice of the fill-in-the-blank text (else 'sentence N', from 0)

/** The similarity card's sentences: one per line, blank lines left out. */
const linesOf = (raw: string) => raw.split('\n').map((line) => line.trim()).filter((line) => line.length > 0);
const shortened = (text: string) => (text.length > 48 ? `${text.slice(0, 47)}…` : text);

const reportOf = (error: unknown): ErrorReport =>
  error instanceof EngineError ? error.report : { title: 'Something went wrong', detail: error instanceof Error ? error.message : String(error) };

function showError(box: HTMLElement, report: ErrorReport | null) {
  box.hidden = !report;
  box.replaceChildren();
  if (!report) return;
  box.append(el('strong', 'notice-title', report.title));
  if (report.detail) box.append(el('span', 'notice-detail', report.detail));
  if (report.advice) box.append(el('span', 'notice-advice', report.advice));
}

/**
 * Runs `work` a pause after the last change; one run at a time, and a change during a run runs it again.
 * A change counts as work in flight from the keystroke on (whenIdle waits for the pause and the run).
 */
class FollowTyping {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | null = null;
  private again = false;
  private paused: (() => void) | null = null; // ends the in-flight wait a change started

  constructor(
    private readonly work: () => Promise<void>,
    private readonly inFlight: WorkInFlight,
  ) {}

  changed() {
    if (!this.paused) void this.inFlight.track(new Promise<void>((resolve) => (this.paused = resolve)));
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      const paused = this.paused;
      this.paused = null;
      void this.now().finally(() => paused?.());
    }, TYPING_PAUSE_MS);
  }

  now(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.inFlight.track(
      (async () => {
        do {
          this.again = false;
          await this.work();
        } while (this.again);
      })().finally(() => (this.running = null)),
    );
    return this.running;
  }
}

export interface EncoderPage {
  /** Shows the encoder's tasks (and hides the decoder's cards) when `info` is an encoder's; else the reverse. */
  modelLoaded(info: ModelInfo): void;
  whenIdle(): Promise<void>;
}

export function mountEncoderPage(client: EngineClient, store: PageStore): EncoderPage {
  const inFlight = new WorkInFlight();
  const decoderParts = [byId('decoder-tasks'), byId('sampling-card')];
  const encoderTasks = byId('encoder-tasks');
  const maskText = byId<HTMLTextAreaElement>('fill-mask-text');
  const maskMeta = byId('fill-mask-meta');
  const maskError = byId('fill-mask-error');
  const maskUnavailable = byId('fill-mask-unavailable');
  const fillMask = new FillMaskView(byId('fill-mask-tokens'), byId('fill-mask-results'));
  const sentences = byId<HTMLTextAreaElement>('similarity-text');
  const similarityMeta = byId('similarity-meta');
  const similarityError = byId('similarity-error');
  const similarity = new SimilarityView(byId('similarity-matrix'));
  const attentionText = byId<HTMLSelectElement>('encoder-attention-text');
  const attentionMeta = byId('encoder-attention-meta');
  const attentionError = byId('encoder-attention-error');
  const attention = new EncoderAttentionView(byId('encoder-attention'), byId('encoder-attention-controls'), byId('encoder-head-view'), byId('encoder-head-table'));
  let encoder: ModelInfo | null = null;
  let headsOff: string[] = []; // "layer.head" of the heads switched off in the roles table: every task reads the ablated run
  const offNote = () => (headsOff.length === 0 ? '' : ` · ${headsOff.length === 1 ? 'head' : 'heads'} ${headsOff.join(', ')} switched off`);

  const followMask = new FollowTyping(async () => {
    if (!encoder?.maskedLm) return;
    const text = maskText.value;
    try {
      const result = await client.request('fill-mask', { text, topK: CANDIDATES });
      if (result.text !== maskText.value) return; // typed on meanwhile: the newer text is on its way
      showError(maskError, null);
      fillMask.show(result, headsOff);
      maskMeta.textContent = `${result.ids.length} tokens · ${result.masks.length} [MASK] · ${result.ms.toFixed(0)} ms`;
      store.set({ fillMask: result });
    } catch (error) {
      if (text !== maskText.value) return;
      showError(maskError, reportOf(error));
      fillMask.empty('The candidates show up here once the text has a [MASK] the model can fill.');
      maskMeta.textContent = '';
      store.set({ fillMask: null });
    }
  }, inFlight);

  const followSentences = new FollowTyping(async () => {
    if (!encoder) return;
    const raw = sentences.value;
    const texts = linesOf(raw);
    if (texts.length === 0) {
      showError(similarityError, null);
      similarity.empty('Write one sentence per line to compare them.');
      similarityMeta.textContent = '';
      store.set({ similarity: null });
      return;
    }
    try {
      const result = await client.request('similarity', { texts });
      if (raw !== sentences.value) return;
      showError(similarityError, null);
      similarity.show(result);
      similarityMeta.textContent = `${texts.length} ${texts.length === 1 ? 'sentence' : 'sentences'} in one batch${offNote()} · ${result.ms.toFixed(0)} ms`;
      store.set({ similarity: result });
    } catch (error) {
      if (raw !== sentences.value) return;
      showError(similarityError, reportOf(error));
      similarity.empty('The matrix shows up here once every line can be read by the model.');
      similarityMeta.textContent = '';
      store.set({ similarity: null });
    }
  }, inFlight);

  /** The texts the attention card can show: the blank's text (a model with an MLM head) and each sentence. */
  function attentionSources() {
    const options: [string, string][] = [];
    if (encoder?.maskedLm) options.push([BLANK, `Fill in the blank: ${shortened(maskText.value.trim())}`]);
    linesOf(sentences.value).forEach((line, i) => options.push([`sentence ${i}`, `Sentence ${i + 1} of ${linesOf(sentences.value).length}: ${shortened(line)}`]));
    const kept = attentionText.value;
    attentionText.replaceChildren(...options.map(([value, label]) => new Option(label, value)));
    const sentenceCount = linesOf(sentences.value).length;
    if (options.some(([value]) => value === kept)) attentionText.value = kept;
    // A sentence picked that is gone (lines deleted): the last one left, rather than a jump to the other task.
    else if (kept.startsWith('sentence ') && sentenceCount > 0) attentionText.value = `sentence ${sentenceCount - 1}`;
  }

  /** What the attention card asks the worker for: the blank's text alone, or the sentences' padded batch. */
  function attentionRequest() {
    if (attentionText.value === BLANK) return { texts: [maskText.value], index: 0, parseSpecial: true };
    return { texts: linesOf(sentences.value), index: Number(attentionText.value.split(' ')[1] ?? 0), parseSpecial: false };
  }

  const followAttention = new FollowTyping(async () => {
    if (!encoder) return;
    attentionSources();
    const request = attentionRequest();
    const asked = JSON.stringify(request);
    if (request.texts.length === 0 || !request.texts[request.index]?.trim()) {
      showError(attentionError, null);
      attention.clear('Write a text above to see where its tokens look.');
      attentionMeta.textContent = '';
      store.set({ encoderAttention: null });
      return;
    }
    try {
      const result = await client.request('encoder-attention', request);
      if (JSON.stringify(attentionRequest()) !== asked) return; // typed on meanwhile: the newer text is on its way
      showError(attentionError, null);
      attention.show(result, headsOff.length > 0);
      const batch = result.texts > 1 ? ` · sentence ${result.index + 1} of a batch of ${result.texts}` : '';
      attentionMeta.textContent = `${result.length} tokens${batch} · ${result.layers} layers × ${result.heads} heads · ${result.ms.toFixed(0)} ms`;
      store.set({ encoderAttention: result });
    } catch (error) {
      if (JSON.stringify(attentionRequest()) !== asked) return;
      const report = reportOf(error);
      if (request.texts.length > 1 && report.code === 'bad-argument') {
        // The engine names the sentence that broke the rule, which may not be the one picked.
        report.title = 'The sentences cannot be read together';
        report.advice = 'A sentence\'s attention is drawn from the batch of all the sentences, as the similarity matrix is computed, so every sentence must fit: shorten or remove the one named.';
      }
      showError(attentionError, report);
      attention.clear('The attention shows up here once the text can be read by the model.');
      attentionMeta.textContent = '';
      store.set({ encoderAttention: null });
    }
  }, inFlight);

  maskText.addEventListener('input', () => {
    followMask.changed();
    followAttention.changed();
  });
  sentences.addEventListener('input', () => {
    followSentences.changed();
    followAttention.changed();
  });
  attentionText.addEventListener('change', () => void followAttention.now());

  // Heads switched off in the roles table: the engine's ablation changes, then every task runs again.
  attention.onSwitchOff = (heads) => {
    if (!encoder) return;
    const scales = heads.length === 0 ? [] : new Array<number>(encoder.layers * encoder.heads).fill(1);
    for (const h of heads) scales[h.layer * encoder.heads + h.head] = 0;
    void inFlight.track(
      client.request('encoder-ablate', { scales }).then(
        () => {
          headsOff = heads.map((h) => `${h.layer}.${h.head}`);
          return Promise.all([followMask.now(), followSentences.now(), followAttention.now()]).then(() => {});
        },
        (error) => showError(attentionError, reportOf(error)),
      ),
    );
  };

  return {
    modelLoaded(info) {
      const isEncoder = info.encoder;
      encoderTasks.hidden = !isEncoder;
      for (const part of decoderParts) part.hidden = isEncoder;
      store.set({ fillMask: null, similarity: null, encoderAttention: null });
      encoder = isEncoder ? info : null;
      headsOff = []; // a model loads with every head on
      if (!isEncoder) return;
      attention.setModel(info.layers, info.heads);
      // A model saved for embeddings has no head that predicts words: said before anyone types.
      maskText.disabled = !info.maskedLm;
      maskUnavailable.hidden = info.maskedLm;
      maskUnavailable.replaceChildren();
      showError(maskError, null);
      if (info.maskedLm) void followMask.now();
      else {
        maskUnavailable.append(
          el('strong', 'notice-title', 'This model cannot fill in blanks'),
          el('span', 'notice-advice', 'It was saved for embeddings, without the masked-language-model head that predicts a missing word. Sentence similarity works; for fill-mask, load a BertForMaskedLM model.'),
        );
        fillMask.empty('No candidates: this model has no masked-language-model head.');
        maskMeta.textContent = '';
      }
      void followSentences.now();
      attentionSources();
      attentionText.value = info.maskedLm ? BLANK : 'sentence 0';
      void followAttention.now();
    },
    whenIdle: () => inFlight.idle(),
  };
}
