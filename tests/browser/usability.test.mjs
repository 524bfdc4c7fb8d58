// Usability of the "see inside" page (issue 10's last points): the main flow with the keyboard alone, a
// main thread that stays responsive while a generation streams with the inspection views in sight, the
// phone layout at 200 tokens, and the heads' views following a running generation. What the page shows is
// checked against what the worker sent (window.__glassbox). Screenshots go to test-output/.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { browserSuite, heatmapGeometry, heatmapHighlight, outputDir, setControls } from './harness.mjs';

const PROMPT = 'Once upon a time'; // typed in; with the page's sampler it gives the full 200 tokens

const suite = browserSuite();
const { withPage } = suite;

/** The focused element, described for messages, and whether it shows a focus indicator. */
const focused = (page) =>
  page.evaluate(() => {
    const a = document.activeElement;
    const style = getComputedStyle(a);
    const outline = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0;
    return {
      id: a.id,
      name: `${a.tagName.toLowerCase()}${a.id ? `#${a.id}` : ''}${a.className && typeof a.className === 'string' ? `.${a.className.split(' ').join('.')}` : ''}`,
      indicator: outline || style.boxShadow !== 'none',
    };
  });

/**
 * Presses Tab (or Shift+Tab) until the focused element matches `selector`, at most `max` times; every
 * element passed on the way must show where the focus is. Returns the number of presses.
 */
async function tabTo(page, selector, max, key = 'Tab') {
  const unmarked = [];
  for (let presses = 1; presses <= max; presses++) {
    await page.keyboard.press(key);
    const now = await focused(page);
    assert.notEqual(now.name, 'body', `focus fell to <body> after ${presses} ${key}s towards ${selector}`);
    if (!now.indicator) unmarked.push(now.name);
    if (await page.evaluate((s) => document.activeElement.matches(s), selector)) {
      assert.deepEqual(unmarked, [], 'every element the keyboard reaches shows its focus');
      return presses;
    }
  }
  assert.fail(`${selector} not reached with ${max} ${key}s`);
}

/** The part-1 and part-2 views have their answers from the worker, and a frame has drawn them. */
async function settle(page) {
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  await page.evaluate(() => Promise.all([window.__glassbox.seeInside.whenIdle(), window.__glassbox.inside.whenIdle(), window.__glassbox.whenAttentionDrawn()]));
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
}

/** Waits until the smooth scroll has ended: `selector`'s element has not moved for 10 frames in a row. */
async function scrollEnded(page, selector) {
  await page.evaluate((s) => {
    window.__still = { top: NaN, frames: 0, selector: s };
  }, selector);
  await page.waitForFunction(
    () => {
      const still = window.__still;
      const top = document.querySelector(still.selector).getBoundingClientRect().top;
      still.frames = top === still.top ? still.frames + 1 : 0;
      still.top = top;
      return still.frames >= 10;
    },
    null,
    { polling: 'raf' },
  );
}

/** The selected position as each view shows it, and the step the worker sent for it. */
async function shownSelection(page) {
  await settle(page);
  return page.evaluate(() => {
    const s = window.__glassbox.seeInside;
    const index = s.steps.findIndex((x) => x.position === s.position);
    return {
      position: s.position,
      promptLength: s.promptLength,
      stepIndex: index, // the generated token drawn from the logits at this position (-1: none)
      slider: Number(document.querySelector('#step-slider').value),
      stepLabel: document.querySelector('.step-label').textContent,
      focusTitle: document.querySelector('.panel-title:has(.focus-token)')?.textContent ?? '',
      pipeline: document.querySelector('#pipeline .next-step')?.textContent ?? document.querySelector('#pipeline').textContent,
      nextToken: document.querySelector('#next-token .next-step')?.textContent ?? '',
      detailQuery: s.detail?.query ?? null,
      pressedOutput: [...document.querySelectorAll('#output .tok[aria-pressed="true"]')].map((x) => Number(x.dataset.index)),
    };
  });
}

/** Every view names `position`: the slider and its label, the heatmap's row and strip, the pipeline, the next-token panel. */
async function assertSelectionShown(page, position) {
  const s = await shownSelection(page);
  assert.equal(s.position, position, 'the current step');
  assert.equal(s.slider, position, 'the slider sits on it');
  assert.match(s.stepLabel, new RegExp(`^position ${position} · token ${position + 1} of `), 'the label counts tokens from 1 and names the position');
  assert.match(s.focusTitle, new RegExp(`\\(token ${position}\\) looks`), 'the attention strip says whose attention it shows');
  assert.equal(s.detailQuery, position, 'attention step by step works through its query');
  const trace = await page.evaluate(() => window.__glassbox.attention(0, 0));
  const geometry = await heatmapGeometry(page, trace.size);
  const { row } = await heatmapHighlight(page);
  assert.equal(trace.begin + Math.round((row.y0 + 1 - geometry.top) / geometry.cell), position, 'the heatmap outlines its row');
  if (s.stepIndex >= 0) {
    assert.equal(s.pipeline, `Step ${s.stepIndex + 1} · from position ${position}`, 'the sampling pipeline shows the step drawn here');
    assert.match(s.nextToken, new RegExp(`^Step ${s.stepIndex + 1}(?!\\d)`), 'the next-token panel shows the same step');
  }
  return s;
}

test('u1. the main flow with the keyboard alone: prompt, generate, stop, step through tokens, pick a cell and a head, ablate it', async (t) => {
  await withPage(t, async ({ page, errors }) => {
    // The prompt box, by Tab from the top of the page, with an accessible name.
    const toPrompt = await tabTo(page, '#prompt', 20);
    assert.match(await page.locator('#prompt').ariaSnapshot(), /textbox "Prompt"/);
    await page.keyboard.press('Control+A');
    await page.keyboard.type(PROMPT);
    await page.waitForFunction((n) => document.querySelector('#token-summary').textContent.includes(` ${n} characters`), [...PROMPT].length);
    t.diagnostic(`${toPrompt} Tabs to the prompt`);

    // Ctrl+Enter generates and puts the focus on Stop; Space there stops it; the focus goes back to Generate.
    await page.keyboard.press('Control+Enter');
    let now = await page.evaluate(() => ({ active: document.activeElement.id, running: window.__glassbox.last?.running }));
    assert.deepEqual(now, { active: 'stop', running: true }, 'Stop has the focus while the generation runs');
    await page.keyboard.press(' ');
    const stopped = await page.evaluate(() => window.__glassbox.whenIdle());
    assert.equal(stopped.reason, 'stopped');
    assert.equal((await focused(page)).id, 'generate', 'after Stop, the focus is on Generate (not lost to <body>)');

    // Enter on Generate: the page's defaults (200 tokens). Stop has the focus again, then Generate when it ends.
    await page.keyboard.press('Enter');
    now = await page.evaluate(() => ({ active: document.activeElement.id, running: window.__glassbox.last?.running }));
    assert.deepEqual(now, { active: 'stop', running: true }, 'Generate by Enter moves the focus to Stop');
    const record = await page.evaluate(() => window.__glassbox.whenIdle());
    assert.ok(record.ids.length >= 100, `${record.ids.length} tokens`);
    assert.equal((await focused(page)).id, 'generate');

    // The step control: Tab reaches the slider; ← steps back one position and every view follows.
    await tabTo(page, '#step-slider', 2);
    const newest = (await shownSelection(page)).position;
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await assertSelectionShown(page, newest - 2);

    // The output is one tab stop, on the selected token; ←/→ move between tokens, Enter selects.
    const promptLength = record.promptIds.length;
    assert.ok((await tabTo(page, '#output .tok', 5)) <= 4, 'the output is a few Tabs after the slider');
    assert.equal(await page.evaluate(() => Number(document.activeElement.dataset.index)), newest - 2 - promptLength, 'Tab lands on the selected token');
    for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('Enter');
    const picked = newest - 7;
    const shown = await assertSelectionShown(page, picked);
    assert.deepEqual(shown.pressedOutput, [picked - promptLength], 'the token is pressed (aria-pressed)');
    assert.ok(shown.stepIndex >= 0, 'a step was drawn at this position');

    // The heatmap: Tab reaches it; arrow keys move a cell cursor (the tooltip shows that cell); Enter pins its row.
    await tabTo(page, 'canvas.heatmap-overlay', 6);
    const trace = await page.evaluate(() => window.__glassbox.attention(0, 0));
    for (const key of ['ArrowUp', 'ArrowUp', 'ArrowUp', 'ArrowLeft']) await page.keyboard.press(key);
    const row = trace.size - 4;
    const [query, key] = await page.$$eval('.tooltip:not([hidden]) dd', (dds) => dds.map((d) => d.textContent));
    assert.ok(query.startsWith(`token ${trace.begin + row} `), `the cursor's query: ${query}`);
    assert.ok(key.startsWith(`token ${trace.begin + row - 1} `), `the cursor's key: ${key}`);
    await page.keyboard.press('Enter');
    await assertSelectionShown(page, trace.begin + row);

    // The heads of the layer: Tab to head 2's thumbnail, Enter shows it large.
    await tabTo(page, '.head-tile[data-head="2"]', 4);
    await page.keyboard.press('Enter');
    await settle(page);
    assert.match(await page.textContent('.heatmap-caption'), /^Layer 0 · head 2/);
    assert.equal(await page.getAttribute('.head-tile[data-head="2"]', 'class'), 'head-tile selected');

    // The model view is one tab stop; arrow keys move between its 40 heads, Enter opens one in the attention view.
    await tabTo(page, '.model-tile', 40);
    for (const key of ['ArrowDown', 'ArrowDown', 'ArrowRight', 'ArrowRight', 'ArrowRight']) await page.keyboard.press(key);
    await page.keyboard.press('Enter');
    await settle(page);
    assert.match(await page.textContent('.heatmap-caption'), /^Layer 2 · head 3/);
    assert.equal(await page.inputValue('#attention-layer'), '2');

    // The keyboard stays on the head opened (issue 27: focus once jumped to the attention card's head picker,
    // and X then marked nothing). X toggles its ablation mark, twice; Apply, then Reset.
    assert.deepEqual(await page.evaluate(() => [document.activeElement.dataset.layer, document.activeElement.dataset.head]), ['2', '3']);
    const marked = () => page.$$eval('.model-tile[aria-pressed="true"]', (tiles) => tiles.map((x) => `${x.dataset.layer}.${x.dataset.head}`));
    await page.keyboard.press('x');
    assert.deepEqual(await marked(), ['2.3']);
    await page.keyboard.press('x');
    assert.deepEqual(await marked(), []);
    await page.keyboard.press('x');
    assert.deepEqual(await page.$$eval('.ablation-row', (rows) => rows.map((x) => `${x.dataset.layer}.${x.dataset.head}`)), ['2.3']);
    await tabTo(page, '#ablation-apply', 30);
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => window.__glassbox.inside.ablationActive);
    await settle(page);
    const kl = await page.evaluate(() => window.__glassbox.inside.ablation.klBits);
    assert.equal(await page.textContent('.ablation-numbers dd[data-key="kl"]'), `${kl.toPrecision(3)} bits`, 'the worker\'s KL is shown');
    assert.equal((await focused(page)).id, 'ablation-apply', 'Apply has the focus back once it is done');
    await tabTo(page, '#ablation-reset', 1);
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => !window.__glassbox.inside.ablationActive);
    await settle(page);
    // Reset stays disabled: the focus waits on the result it announced, and Shift+Tab goes back to Apply.
    assert.equal((await focused(page)).name, 'div.ablation-result');
    await tabTo(page, '#ablation-apply', 1, 'Shift+Tab');
    await page.locator('.content').screenshot({ path: path.join(outputDir, 'u1-keyboard.png') });
    assert.deepEqual(errors, []);
  });
});

test('u2. while 200 tokens stream with the views in sight, the text streams: partial states are drawn before the end', async (t) => {
  // How long the main thread's tasks take meanwhile is a figure, not a test: tests/peers/page-responsiveness.mjs.
  await withPage(
    t,
    async ({ page, errors }) => {
      // Every frame while it runs: how many tokens the output shows.
      await page.evaluate(() => {
        window.__frames = [];
        const tick = () => {
          const last = window.__glassbox.last;
          if (last?.running) window.__frames.push(document.querySelectorAll('#output .tok').length);
          if (!window.__stopFrames) requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
      });
      await page.click('#generate'); // the page's defaults: stories260K, its prompt, 200 tokens
      const record = await page.evaluate(() => window.__glassbox.whenIdle());
      await settle(page);
      const { frames, liveBatches } = await page.evaluate(() => {
        window.__stopFrames = true;
        return { frames: window.__frames, liveBatches: window.__glassbox.inside.batch?.total };
      });
      assert.equal(record.ids.length, 200);
      assert.ok(liveBatches > 0);
      const partial = new Set(frames.filter((n) => n > 0 && n < 200));
      t.diagnostic(`${frames.length} frames while streaming, ${partial.size} showing a different part of the text`);
      // Most frames drawn meanwhile show a new part of the text. Since the threaded page runs stories260K's tokens
      // on one thread (glassbox/thread_choice.hpp: 500-1,000 tokens/s, more since the 8-partial order), 200
      // tokens can stream in under ten frames: in one CI run 4 frames, two of them between the same two token
      // batches. So half the frames but one, and at least one: text drawn only at the end still fails.
      const wanted = Math.max(1, Math.min(5, Math.ceil(frames.length / 2) - 1));
      assert.ok(partial.size >= wanted, `the text streams: ${partial.size} partial states were drawn before the end, in ${frames.length} frames`);
      assert.deepEqual(errors, []);
    },
    // Tall enough that the attention view, the model view and the head view are all in sight (they refresh
    // only then), so the test sees the most drawing a generation can cause.
    { viewport: { width: 1440, height: 4200 } },
  );
});

test('u3. on a phone, a tapped token\'s distribution is in sight, heatmap cells stay tappable at 200 tokens, nothing is wider than the screen', async (t) => {
  await withPage(
    t,
    async ({ page, errors }) => {
      await page.tap('#generate');
      const record = await page.evaluate(() => window.__glassbox.whenIdle());
      await settle(page);
      assert.equal(record.ids.length, 200);
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 390, 'nothing is wider than the screen');

      // A tap on a token: the next-token card, right under the output, comes into sight with the token.
      const token = page.locator('#output .tok[data-index="20"]');
      await token.tap();
      await page.waitForFunction(() => /^Step 22\b/.test(document.querySelector('#next-token .next-step')?.textContent ?? ''));
      const inSight = () =>
        page.evaluate(() => {
          const next = document.querySelector('.next-card').getBoundingClientRect();
          const tok = document.querySelector('#output .tok[data-index="20"]').getBoundingClientRect();
          return { nextShown: Math.min(next.bottom, innerHeight) - Math.max(next.top, 0), tokenTop: tok.top, tokenBottom: tok.bottom, gap: next.top - tok.bottom };
        });
      await page.waitForFunction(() => {
        const next = document.querySelector('.next-card').getBoundingClientRect();
        return Math.min(next.bottom, innerHeight) - Math.max(next.top, 0) >= 200;
      });
      await scrollEnded(page, '.next-card');
      const seen = await inSight();
      assert.ok(seen.nextShown >= 200, `${seen.nextShown.toFixed(0)} px of the next-token card are on screen`);
      assert.ok(seen.tokenTop >= 0 && seen.tokenBottom <= 844, `the tapped token stays on screen (${seen.tokenTop.toFixed(0)}–${seen.tokenBottom.toFixed(0)})`);
      assert.ok(seen.gap < 1100, `the card is ${seen.gap.toFixed(0)} px below the token`);
      await page.screenshot({ path: path.join(outputDir, 'u3-phone-tap.png') });

      // The heatmap at ~200 tokens: cells of at least 3 CSS px, the frame scrolling sideways, not the page.
      const trace = await page.evaluate(() => window.__glassbox.attention(0, 0));
      assert.ok(trace.size >= 200);
      const geometry = await heatmapGeometry(page, trace.size);
      assert.ok(geometry.cell >= 3, `heatmap cells are ${geometry.cell.toFixed(2)} CSS px`);
      const frame = await page.$eval('.heatmap-frame', (f) => ({ scrolls: f.scrollWidth > f.clientWidth, right: f.getBoundingClientRect().right, overflow: getComputedStyle(f).overflowX }));
      assert.deepEqual([frame.scrolls, frame.overflow], [true, 'auto'], 'the heatmap scrolls sideways in its frame');
      assert.ok(frame.right <= 390, 'the frame fits the screen');

      for (const card of ['.prompt-card', '.output-card', '.next-card', '.attention-card', '.pipeline-card', '.steps-card', '.lens-card', '#model-view-card', '#head-view-card', '#anatomy-card']) {
        await page.locator(card).screenshot({ path: path.join(outputDir, `u3-phone-${card.replace(/[#.]/g, '')}.png`) });
      }
      await page.screenshot({ path: path.join(outputDir, 'u3-phone-full.png'), fullPage: true, scale: 'css' });
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 390);
      assert.deepEqual(errors, []);
    },
    { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true },
  );
});

test('u4. the model view and the head view follow a running generation, not only its end', async (t) => {
  await withPage(t, async ({ page, errors }) => {
    // Each new batch the views draw while the generation runs: its size, and a checksum of one thumbnail's pixels.
    await page.evaluate(() => {
      window.__seen = [];
      let batch = null;
      const tick = () => {
        const g = window.__glassbox;
        const canvas = document.querySelector('.model-tile[data-layer="1"][data-head="0"] canvas');
        if (g.last?.running && g.inside.batch && g.inside.batch !== batch && canvas) {
          batch = g.inside.batch;
          const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
          let sum = 0;
          for (let i = 0; i < data.length; i += 4) sum = (sum * 31 + data[i] + 7 * data[i + 1] + 13 * data[i + 2]) >>> 0;
          window.__seen.push({ total: batch.total, tokens: g.last.ids.length, width: canvas.width, sum, caption: document.querySelector('.head-view-caption')?.textContent ?? '' });
        }
        if (!window.__stopSeen) requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    });
    // A long generation, so that several refreshes fall within it: from an empty prompt at temperature 1
    // and seed 42, stories260K writes until its context is full (as in page.test.mjs's Stop test). It writes
    // those 511 tokens in about a second, as little as two refresh periods (0.5 s, or 9 times a refresh's cost
    // on a busy machine). The worker computes a token only once the page has taken the one before, so drawing
    // each token 10 ms slower paces the generation like a bigger model's: at least 5 s, whatever the machine.
    await page.fill('#prompt', '');
    await setControls(page, { temperature: 1, topK: 0, topP: 1, seed: 42, maxTokens: 512 });
    await page.evaluate(() => {
      new MutationObserver(() => {
        const until = performance.now() + 10;
        while (performance.now() < until);
      }).observe(document.querySelector('#output'), { childList: true });
    });
    await page.click('#generate');
    const record = await page.evaluate(() => window.__glassbox.whenIdle());
    await settle(page);
    const seen = await page.evaluate(() => {
      window.__stopSeen = true;
      return window.__seen;
    });
    const final = record.promptIds.length + record.ids.length - 1;
    t.diagnostic(`live batches: ${seen.map((s) => s.total).join(', ')} of ${final} positions`);
    assert.ok(seen.length >= 2, `${seen.length} refreshes while running`);
    assert.ok(seen.every((s) => s.total < final), 'drawn before the end');
    assert.ok(new Set(seen.map((s) => s.sum)).size >= 2, 'the thumbnail changed while streaming');
    for (const s of seen) assert.match(s.caption, new RegExp(`(${s.total} tokens|of ${s.total} tokens)\\.`), 'the head view shows the same batch');
    assert.equal(await page.evaluate(() => window.__glassbox.inside.batch.total), final, 'and the end is drawn in full');
    assert.deepEqual(errors, []);
  }, { viewport: { width: 1440, height: 4200 } }); // the views refresh only in sight: all of them are
});

test('u5. Step by keyboard: each press adds one token and the focus stays on Step', async (t) => {
  await withPage(t, async ({ page, errors }) => {
    await tabTo(page, '#step', 25);
    const promptLengths = [];
    for (let press = 1; press <= 3; press++) {
      const before = await page.evaluate(() => window.__glassbox.generations);
      await page.keyboard.press(press % 2 ? 'Enter' : ' ');
      await page.waitForFunction((n) => window.__glassbox.generations > n && !window.__glassbox.last.running, before);
      const record = await page.evaluate(() => window.__glassbox.last);
      assert.equal(record.ids.length, press, 'one token per Step, the run growing (issue 27)');
      promptLengths.push(record.promptIds.length);
      assert.equal((await focused(page)).id, 'step', `after Step ${press} the focus is back on Step (not on <body> or Generate)`);
    }
    assert.deepEqual(promptLengths, [0, 0, 0].map((i) => promptLengths[0] + i), 'each Step continues the run of the one before: the prompt stays the prompt');
    assert.deepEqual(errors, []);
  });
});
