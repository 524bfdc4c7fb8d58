// Shared set-up for the browser tests: the built dist/ served from a subfolder by the project's own static
// server, one headless Debian Chromium, and helpers for pages, screenshots and the golden data.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startStaticServer } from '../../web/tools/static-server.mjs';

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const dist = process.env.GLASSBOX_DIST ? path.resolve(repo, process.env.GLASSBOX_DIST) : path.join(repo, 'dist'); // GLASSBOX_DIST: another build of the page
export const outputDir = path.join(repo, 'test-output');
export const SUBFOLDER = '/glassbox/';

/** GLASSBOX_REQUIRE_MODELS=1 (as in CI): a test that would skip for a missing file fails instead. */
export const requireAll = process.env.GLASSBOX_REQUIRE_MODELS === '1';
/** The page's default model, which most tests use. */
export const haveStories = ['stories260K.bin', 'tok512.bin'].every((f) => fs.existsSync(path.join(repo, 'models', f)));

export function skipOrFail(t, message) {
  if (requireAll) assert.fail(`${message} (GLASSBOX_REQUIRE_MODELS=1)`);
  t.skip(message);
}

/**
 * One browser environment for a test file: started before its tests and closed after them. `suite.env` is
 * the environment; `suite.withPage(t, body, options)` opens the page, waits for stories260K, runs `body` with
 * the page session and always closes its context (it skips, or fails under GLASSBOX_REQUIRE_MODELS=1,
 * without the model files).
 */
export function browserSuite() {
  const suite = {
    env: undefined,
    async withPage(t, body, options) {
      if (!haveStories) return skipOrFail(t, 'models/stories260K.bin and models/tok512.bin are absent: run scripts/fetch-models.sh');
      const session = await openPage(suite.env, options);
      try {
        await whenModelLoaded(session.page);
        await body(session);
      } finally {
        await session.context.close();
      }
    },
  };
  before(async () => {
    suite.env = await startEnvironment();
  });
  after(async () => {
    await suite.env?.close();
  });
  return suite;
}

const CHROMIUM = process.env.GLASSBOX_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

export async function startEnvironment() {
  if (!fs.existsSync(path.join(dist, 'index.html'))) throw new Error('dist/index.html is missing: run `npm run build` first (npm run test:browser does)');
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium`);
  fs.mkdirSync(outputDir, { recursive: true });
  const served = [];
  const server = await startStaticServer({ root: dist, base: SUBFOLDER, onRequest: (p) => served.push(p) });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  return {
    server,
    served, // every path the server was asked for
    startServer: (options) => startStaticServer({ root: dist, base: SUBFOLDER, ...options }),
    browser,
    async close() {
      await browser.close();
      await server.close();
    },
  };
}

/**
 * A fresh context and page at the app's URL. Console errors and uncaught exceptions are collected in
 * `errors` (tests that expect none assert on it). `beforeLoad(context)` runs before the page opens (routes).
 */
export async function openPage(env, { url = env.server.url, viewport = { width: 1440, height: 1000 }, beforeLoad, ...contextOptions } = {}) {
  const context = await env.browser.newContext({ viewport, deviceScaleFactor: 1, ...contextOptions });
  await beforeLoad?.(context);
  const page = await context.newPage();
  const errors = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`page: ${error.message}`));
  const requests = [];
  page.on('request', (request) => requests.push(request.url()));
  await page.goto(url);
  return { context, page, errors, requests };
}

/** Waits until the page has loaded `count` models (the default model on start is the first). */
export async function whenModelLoaded(page, count = 1, timeout = 20_000) {
  await page.waitForFunction(() => window.__glassbox !== undefined, null, { timeout });
  // Bounded (generously: a busy machine loads slowly): an engine that fails to start would otherwise leave the
  // test waiting until the runner's limit.
  return page.evaluate(
    ([n, ms]) =>
      Promise.race([
        window.__glassbox.whenLoaded(n),
        new Promise((_, reject) => setTimeout(() => reject(new Error(`no model loaded within ${ms} ms`)), ms)),
      ]),
    [count, Math.max(timeout, 120_000)],
  );
}

export async function screenshot(page, name) {
  await page.screenshot({ path: path.join(outputDir, `${name}.png`), fullPage: true });
}

/** Sets the sampling controls as a person would: typing into the number fields. */
export async function setControls(page, values) {
  const ids = { temperature: '#temperature', topK: '#top-k', topP: '#top-p', seed: '#seed', maxTokens: '#max-tokens' };
  for (const [key, value] of Object.entries(values)) {
    await page.fill(ids[key], String(value));
    await page.dispatchEvent(ids[key], 'change');
  }
}

/** Types a prompt, clicks Generate and waits for the generation to finish. */
export async function generate(page, prompt, values = {}) {
  await page.fill('#prompt', prompt);
  await setControls(page, values);
  const before = await page.evaluate(() => window.__glassbox.generations);
  await page.click('#generate');
  await page.waitForFunction((n) => window.__glassbox.generations > n, before);
  return page.evaluate(() => window.__glassbox.whenIdle());
}

export function goldenPath() {
  const dir = process.env.GLASSBOX_GOLDEN_DIR ?? path.join(repo, '..', 'shared', 'golden');
  return path.join(dir, 'stories260K.greedy.jsonl');
}

export function readGolden() {
  const file = goldenPath();
  if (!fs.existsSync(file)) return null;
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line));
}

/** The native CLI's tokenization, or null when the binary is absent. */
export function nativeTokenize(text) {
  const cli = process.env.GLASSBOX_CLI ?? path.join(repo, 'build', 'glassbox');
  if (!fs.existsSync(cli)) return null;
  const out = execFileSync(cli, ['tokenize', '--tokenizer', path.join(repo, 'models', 'tok512.bin'), '--text', text, '--json'], { encoding: 'utf8' });
  return JSON.parse(out);
}

/**
 * Where the heatmap's cells are, in CSS pixels from the canvas's top-left corner, read from the drawn pixels
 * rather than from the page's code: the masked cells (k > q) are the one exact grey (238, 240, 242), and their
 * bounding box runs from column 1 to column n and from row 0 to row n - 1. `n` is the trace's size.
 */
export async function heatmapGeometry(page, n) {
  const box = await page.$eval('canvas.heatmap', (canvas) => {
    const scale = canvas.width / canvas.getBoundingClientRect().width;
    const { data, width, height } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    let [x0, x1, y0, y1] = [Infinity, -1, Infinity, -1];
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const i = (y * width + x) * 4;
        if (data[i] !== 238 || data[i + 1] !== 240 || data[i + 2] !== 242 || data[i + 3] !== 255) continue;
        x0 = Math.min(x0, x);
        x1 = Math.max(x1, x + 1);
        y0 = Math.min(y0, y);
        y1 = Math.max(y1, y + 1);
      }
    }
    return { x0: x0 / scale, x1: x1 / scale, y0: y0 / scale, y1: y1 / scale };
  });
  const cell = (box.x1 - box.x0) / (n - 1);
  return { left: box.x0 - cell, top: box.y0, cell, maskedHeight: box.y1 - box.y0 };
}

/** The overlay's highlight: bounding boxes (CSS pixels) of its amber row outline and its dark cell outline. */
export async function heatmapHighlight(page) {
  return page.$eval('canvas.heatmap-overlay', (canvas) => {
    const scale = canvas.width / canvas.getBoundingClientRect().width;
    const { data, width, height } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    const boxes = { row: null, cell: null };
    const grow = (name, x, y) => {
      const b = (boxes[name] ??= { x0: Infinity, x1: -1, y0: Infinity, y1: -1 });
      b.x0 = Math.min(b.x0, x / scale);
      b.x1 = Math.max(b.x1, (x + 1) / scale);
      b.y0 = Math.min(b.y0, y / scale);
      b.y1 = Math.max(b.y1, (y + 1) / scale);
    };
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const i = (y * width + x) * 4;
        const [r, g, b, a] = [data[i], data[i + 1], data[i + 2], data[i + 3]];
        if (a < 200) continue; // the label shading (10% opacity) and anti-aliased fringes
        if (r > 200 && g > 120 && g < 200 && b < 90) grow('row', x, y); // amber #f59e0b
        else if (r < 80 && g < 80 && b < 90) grow('cell', x, y); // near-black #111827
      }
    }
    return boxes;
  });
}

/** A file of models/ by name. */
export const modelFile = (name) => path.join(repo, 'models', name);
/** A file to drop: {name, base64}, read from models/ unless its bytes are given. */
export const fileOf = (name, buffer = fs.readFileSync(modelFile(name))) => ({ name, base64: Buffer.from(buffer).toString('base64') });

/** Drops `files` ({name, base64}) on the page at once, as a person dragging them from a file manager would. */
export async function drop(page, files) {
  await page.evaluate((dropped) => {
    const transfer = new DataTransfer();
    for (const { name, base64 } of dropped) transfer.items.add(new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], name));
    document.querySelector('#dropzone').dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
  }, files);
}

/** Waits until one more load has ended, either way; says which. */
export async function loadEnded(page, before) {
  await page.waitForFunction((n) => window.__glassbox.loads + window.__glassbox.failedLoads > n, before.loads + before.failedLoads);
  const now = await loadCounts(page);
  return now.loads > before.loads ? 'loaded' : 'failed';
}
export const loadCounts = (page) => page.evaluate(() => ({ loads: window.__glassbox.loads, failedLoads: window.__glassbox.failedLoads }));

/** Drops files and waits for the load they start to end. */
export async function dropAndSettle(page, files) {
  const before = await loadCounts(page);
  await drop(page, files);
  return loadEnded(page, before);
}
