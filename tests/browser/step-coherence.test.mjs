// Issue 27, "one step, everywhere": every view follows the page's one current step (the heatmap, step by
// step, the logit lens, the pipeline, the head view, the RoPE view's real query, the ablation's measured
// position), Step extends the run it follows, the head and model views show any window, and the layout,
// text and keyboard fixes hold. Each check reads the position every view shows after the step moved
// (window.__glassbox and the DOM), on desktop and on a phone; screenshots go to test-output/.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { browserSuite, generate, openPage, screenshot, whenModelLoaded } from './harness.mjs';

const PROMPT = 'Once upon a time, there was a little girl named Lily. She liked to play';
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

const suite = browserSuite();
const { withPage } = suite;

/** Every view's answers are in and drawn. */
async function settle(page) {
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  await page.evaluate(() => Promise.all([window.__glassbox.seeInside.whenIdle(), window.__glassbox.inside.whenIdle(), window.__glassbox.whenAttentionDrawn()]));
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  await page.evaluate(() => Promise.all([window.__glassbox.seeInside.whenIdle(), window.__glassbox.inside.whenIdle()]));
}

/** Moves the step slider as a person would (its input event). */
async function moveSlider(page, position) {
  await page.$eval(
    '#step-slider',
    (slider, p) => {
      slider.value = String(p);
      slider.dispatchEvent(new Event('input', { bubbles: true }));
    },
    position,
  );
  await settle(page);
}

/** The position each view shows now. */
function viewPositions(page) {
  return page.evaluate(() => {
    const g = window.__glassbox;
    const lensPick = document.querySelector('.lens-pick.selected');
    return {
      current: g.seeInside.position,
      slider: Number(document.querySelector('#step-slider').value),
      label: document.querySelector('.step-label').textContent,
      detail: g.seeInside.detail?.query ?? null,
      lens: lensPick ? Number(lensPick.dataset.position) : null,
      headView: g.inside.headViewQuery,
      headViewButton: (() => {
        const b = document.querySelector('#head-view .head-view-token.selected');
        return b && g.inside.batch ? g.inside.batch.begin + Number(b.dataset.index) : null;
      })(),
      rope: g.inside.rope()?.source.kind === 'query' ? g.inside.rope().source.position : null,
      pipeline: document.querySelector('#pipeline .next-step')?.textContent ?? null,
      nextToken: document.querySelector('#next-token .next-step')?.textContent ?? null,
    };
  });
}

test('s1. every view follows the step: heatmap detail, logit lens, pipeline, head view (↑/↓ move it), RoPE real query, ablation', async (t) => {
  await withPage(t, async ({ page, errors }) => {
    const result = await generate(page, PROMPT, { temperature: 0, maxTokens: 40 });
    assert.equal(result.ids.length, 40);
    await page.selectOption('#rope-source', 'query'); // the RoPE view reads a real query
    await settle(page);
    const promptLength = result.promptIds.length;

    await moveSlider(page, 8);
    let v = await viewPositions(page);
    assert.equal(v.current, 8);
    assert.equal(v.slider, 8);
    assert.match(v.label, /^position 8 · token 9 of \d+ · prompt$/);
    assert.equal(v.detail, 8, 'attention step by step');
    assert.equal(v.lens, 8, 'the logit lens');
    assert.equal(v.headView, 8, 'the head view looks from the current step, not the last token');
    assert.equal(v.headViewButton, 8, 'and its picked query token is that one');
    assert.equal(v.rope, 8, "the RoPE view's real query is the current step's");

    // A generated step: the pipeline and the next-token panel name the same step as the label.
    const at = promptLength + 4;
    await moveSlider(page, at);
    v = await viewPositions(page);
    assert.match(v.label, new RegExp(`^position ${at} · token ${at + 1} of \\d+ · step 6, drew generated token 6$`));
    assert.equal(v.pipeline, `Step 6 · from position ${at}`);
    assert.match(v.nextToken, /^Step 6(?!\d)/);
    assert.deepEqual([v.detail, v.lens, v.headView, v.rope], [at, at, at, at]);

    // ↑ in the head view's queries moves the shared step (and every view with it).
    await page.focus('#head-view .head-view-token.selected');
    await page.keyboard.press('ArrowUp');
    await settle(page);
    v = await viewPositions(page);
    assert.equal(v.current, at - 1, '↑ in the head view moved the shared step');
    assert.deepEqual([v.slider, v.detail, v.lens, v.headView, v.rope], [at - 1, at - 1, at - 1, at - 1, at - 1]);
    assert.equal(await page.evaluate(() => document.activeElement.classList.contains('head-view-token')), true, 'the keyboard stays in the head view');

    // The ablation measures at the current step (the core's ablate_session with a position).
    await page.click('.model-tile[data-layer="0"][data-head="0"]', { modifiers: ['Shift'] });
    await page.click('#ablation-apply');
    await page.waitForFunction(() => window.__glassbox.inside.ablationActive);
    await settle(page);
    const ablation = await page.evaluate(() => window.__glassbox.inside.ablation);
    assert.equal(ablation.position, at - 1, 'the ablation is measured at the current step');
    assert.match(await page.textContent('#ablation'), new RegExp(`after position ${at - 1} \\(token ${at}\\)`));
    await screenshot(page, 'step-coherence-01-desktop');
    assert.deepEqual(errors, []);
  });
});

test('s2. Step extends the run: the prompt stays, the generated text stays generated, the label and panels agree', async (t) => {
  await withPage(t, async ({ page, errors }) => {
    const first = await generate(page, PROMPT, { temperature: 0, maxTokens: 12 });
    const before = await page.evaluate(() => window.__glassbox.generations);
    await page.click('#step');
    await page.waitForFunction((n) => window.__glassbox.generations > n, before);
    const last = await page.evaluate(() => window.__glassbox.whenIdle());
    await settle(page);
    assert.equal(await page.inputValue('#prompt'), PROMPT, 'the prompt box keeps the prompt');
    assert.deepEqual(last.promptIds, first.promptIds, 'the prompt is the prompt');
    assert.deepEqual(last.ids.slice(0, 12), first.ids, 'the tokens generated before stay');
    assert.equal(last.ids.length, 13, 'one more token');
    assert.equal(await page.textContent('#output .prompt-text'), PROMPT, 'only the prompt is grey');
    assert.equal(await page.$$eval('#output .tok', (t) => t.length), 13, 'the generated tokens stay generated');
    assert.equal(await page.textContent('#output-meta'), 'stepped: generated token 13');
    const s = await page.evaluate(() => ({ promptLength: window.__glassbox.seeInside.promptLength, position: window.__glassbox.seeInside.position }));
    assert.equal(s.promptLength, first.promptIds.length);
    const v = await viewPositions(page);
    const position = first.promptIds.length + 11; // the position that drew generated token 13
    assert.equal(s.position, position, 'the views follow the newest step');
    await moveSlider(page, position);
    const w = await viewPositions(page);
    assert.match(w.label, new RegExp(`· step 13, drew generated token 13$`));
    assert.match(w.nextToken, /^Step 13(?!\d)/, 'the label and the next-token panel agree');
    assert.ok(!/reached max tokens/.test(await page.textContent('#output-meta')));
    assert.ok(v.label.startsWith(`position ${position} · token ${position + 1} of ${position + 2} · step 13`), v.label);
    // Greedy: the stepped run is the 13-token run.
    const whole = await generate(page, PROMPT, { temperature: 0, maxTokens: 13 });
    assert.deepEqual(last.ids, whole.ids, 'Step continued the same run (greedy: the same 13 tokens)');
    assert.deepEqual(errors, []);
  });
});

test('s3. the head and model views show the window that holds the step, any earlier one included', async (t) => {
  await withPage(t, async ({ page, errors }) => {
    const result = await generate(page, PROMPT, { temperature: 0, maxTokens: 100 });
    await settle(page);
    const total = result.promptIds.length + result.ids.length - 1;
    let batch = await page.evaluate(() => ({ begin: window.__glassbox.inside.batch.begin, size: window.__glassbox.inside.batch.size, total: window.__glassbox.inside.batch.total }));
    assert.deepEqual(batch, { begin: total - 64, size: 64, total }, 'following: the newest 64');
    await moveSlider(page, 10);
    batch = await page.evaluate(() => ({ begin: window.__glassbox.inside.batch.begin, size: window.__glassbox.inside.batch.size }));
    assert.ok(batch.begin <= 10 && 10 < batch.begin + batch.size, `the window ${batch.begin}+${batch.size} holds position 10`);
    const v = await viewPositions(page);
    assert.equal(v.headView, 10);
    assert.equal(v.headViewButton, 10);
    assert.match(await page.textContent('.head-view-caption'), new RegExp(`positions ${batch.begin}–${batch.begin + 63} of ${total} tokens`));
    assert.match(await page.textContent('#model-view'), new RegExp(`positions ${batch.begin}–${batch.begin + 63} of ${total} tokens`));
    // Its attention is the engine's over that window.
    const fromBatch = await page.evaluate(() => {
      const b = window.__glassbox.inside.batch;
      const q = 10 - b.begin;
      return Array.from(b.matrix.slice(q * b.size, q * b.size + b.size)); // layer 0, head 0, row q
    });
    const trace = await page.evaluate(() => window.__glassbox.attention(0, 0));
    for (let k = 0; k < 64; k++) {
      if (batch.begin + k > 10) break;
      // The heatmap's window is the newest 256: all of this text. A key before the window is not in the batch's row.
      const whole = trace.matrix[(10 - trace.begin) * trace.size + (batch.begin + k - trace.begin)];
      assert.ok(Math.abs(fromBatch[k] - whole) < 1e-6, `key ${batch.begin + k}: ${fromBatch[k]} vs ${whole}`);
    }
    await page.locator('#head-view-card').screenshot({ path: 'test-output/step-coherence-02-window.png' });
    assert.deepEqual(errors, []);
  });
});

test('s4. keyboard: the logit lens is one tab stop and its arrows move the step; the output\'s arrows move the step', async (t) => {
  await withPage(t, async ({ page, errors }) => {
    const result = await generate(page, PROMPT, { temperature: 0, maxTokens: 20 });
    await settle(page);
    assert.equal(await page.$$eval('.lens-pick', (b) => b.filter((x) => x.tabIndex === 0).length), 1, 'one tab stop in the logit lens');
    await page.focus('.lens-pick[tabindex="0"]');
    const start = await page.evaluate(() => window.__glassbox.seeInside.position);
    await page.keyboard.press('ArrowLeft');
    await settle(page);
    assert.equal(await page.evaluate(() => window.__glassbox.seeInside.position), start - 1, '← in the logit lens moved the step');
    assert.equal(await page.evaluate(() => document.activeElement.dataset.position), String(start - 1), 'the focus went with it');

    await page.focus('#output .tok[tabindex="0"]');
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await settle(page);
    assert.equal(await page.evaluate(() => window.__glassbox.seeInside.position), result.promptIds.length + 2, '→ in the output moved the step');
    assert.equal(await page.evaluate(() => document.activeElement.dataset.index), '2');
    assert.deepEqual(errors, []);
  });
});

test('s5. texts: plain effective rank, no "much longer than 4 tokens", the RoPE axis rounded as its caption, tokens counted from 1', async (t) => {
  await withPage(t, async ({ page, errors }) => {
    await generate(page, PROMPT, { temperature: 0, maxTokens: 20 });
    await settle(page);
    const help = await page.textContent('#head-table');
    assert.ok(!/seed 002/.test(help), 'no reference a reader cannot follow');
    assert.ok(!/much longer than \d+ tokens/.test(help));
    assert.match(help, /Effective rank: how many different blends/);
    const axis = await page.$eval('canvas.rope-offsets', (c) => [c.dataset.axisHigh, c.dataset.axisLow]);
    for (const label of axis) assert.match(label, /^-?\d+\.\d{3}$/, 'three decimals, as the caption');
    const caption = await page.textContent('#positions');
    assert.ok(caption.includes(axis[0]), `the caption names the axis's top value ${axis[0]}`);
    const last = await page.evaluate(() => window.__glassbox.seeInside.position);
    const n = await page.evaluate(() => window.__glassbox.seeInside.sequence.length);
    assert.match(await page.textContent('.step-label'), new RegExp(`^position ${last} · token ${last + 1} of ${n}`));
    assert.deepEqual(errors, []);
  });
});

test('s6. phone: the pipeline keeps its token column in place and reaches "after top-p"; no Ctrl+Enter hint', async (t) => {
  await withPage(
    t,
    async ({ page, errors }) => {
      assert.equal(await page.isVisible('#prompt-hint .keyboard-only'), false, 'no keyboard shortcut on a touch screen');
      await generate(page, PROMPT, { temperature: 1, topP: 0.9, maxTokens: 10 });
      await settle(page);
      const box = await page.$eval('.pipeline-scroll', (s) => {
        s.scrollLeft = s.scrollWidth;
        const token = s.querySelector('tr.chosen td.pipeline-token').getBoundingClientRect();
        const last = s.querySelector('tr.chosen td:last-child').getBoundingClientRect();
        const frame = s.getBoundingClientRect();
        return { token: token.left - frame.left, lastRight: last.right, frameRight: frame.right, width: document.documentElement.clientWidth, pageWide: document.documentElement.scrollWidth };
      });
      assert.ok(Math.abs(box.token) < 1, `the token column stays at the left edge (${box.token})`);
      assert.ok(box.lastRight <= box.frameRight + 1 && box.lastRight <= box.width, 'the sampled column is in sight');
      assert.ok(box.pageWide <= box.width, 'the page itself does not scroll sideways');
      await page.locator('#pipeline').scrollIntoViewIfNeeded();
      await page.screenshot({ path: 'test-output/step-coherence-03-phone-pipeline.png' });
      await screenshot(page, 'step-coherence-04-phone');
      assert.deepEqual(errors, []);
    },
    PHONE,
  );
});

test('s7. desktop: the sidebar stays in sight; a shared #…pos= link shows that position', async (t) => {
  await withPage(t, async ({ page, context }) => {
    await generate(page, PROMPT, { temperature: 0, maxTokens: 30 });
    await settle(page);
    await page.evaluate(() => document.querySelector('#logit-lens').scrollIntoView());
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(r)));
    const sampling = await page.$eval('#sampling-card', (c) => c.getBoundingClientRect().top);
    assert.ok(sampling >= 0 && sampling < 1000, `the sampling controls are in sight while the logit lens is read (top ${sampling})`);
    await page.screenshot({ path: 'test-output/step-coherence-05-desktop-sticky.png' });

    await moveSlider(page, 12);
    const url = page.url();
    assert.match(url, /pos=12/);
    const again = await openPage(suite.env, { url });
    try {
      await whenModelLoaded(again.page);
      await again.page.waitForFunction(() => window.__glassbox.seeInside.position === 12, null, { timeout: 60_000 });
      assert.match(await again.page.textContent('.step-label'), /^position 12 · token 13 of /);
      assert.equal(await again.page.inputValue('#prompt'), PROMPT);
    } finally {
      await again.context.close();
    }
    void context;
  });
});
