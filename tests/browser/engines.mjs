// The three browser engines behind one small interface, for tests/browser/engines.test.mjs: Chromium (Debian's,
// through playwright-core), Firefox ESR (Debian's, through puppeteer-core over WebDriver BiDi, headless) and
// WebKit (WebKitGTK's MiniBrowser through its WebKitWebDriver and selenium-webdriver, under an Xvfb display of
// its own: MiniBrowser has no headless mode). Each driver opens one page and offers what the flows need:
//   open(url), reload(), run(fn, arg) (fn runs in the page; a promise it returns is awaited), waitFor(fn, arg),
//   click(selector), screenshot(file), errorsSoFar() (console errors and uncaught exceptions), close().
// Functions travel to the page as source text, so they may use only their argument and the page's globals.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';

export const FIREFOX = process.env.GLASSBOX_FIREFOX ?? '/usr/bin/firefox-esr';
export const WEBKIT_DRIVER = process.env.GLASSBOX_WEBKIT_DRIVER ?? '/usr/bin/WebKitWebDriver';
export const MINIBROWSER = process.env.GLASSBOX_MINIBROWSER ?? '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';
const CHROMIUM = process.env.GLASSBOX_CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

export const VIEWPORT = { width: 1440, height: 1000 };
const WAIT_MS = 120_000; // generous: a busy machine loads slowly, but an engine that fails must not hang the run

/**
 * Each engine: its name, the programs it needs, how to start its driver, and whether the page runs the threaded
 * build there. WebKitGTK cannot post shared WebAssembly memory to a worker (DataCloneError), so the page runs the
 * single-threaded build in it (docs/hosting.md). Chromium runs only as far as its tokens, the reference for the
 * others: its own tests (page.test.mjs and the rest) cover the other flows in it.
 */
export const ENGINES = [
  { name: 'chromium', needs: [CHROMIUM], start: startChromium, threaded: true, referenceOnly: true },
  { name: 'firefox', needs: [FIREFOX], start: startFirefox, threaded: true },
  { name: 'webkit', needs: [WEBKIT_DRIVER, MINIBROWSER, '/usr/bin/Xvfb'], start: startWebKit, threaded: false },
];

/** The programs of `engine` that this machine lacks. */
export const missingPrograms = (engine) => engine.needs.filter((file) => !fs.existsSync(file));

/**
 * An expression that calls `fn` with `arg` and settles to its result. The drivers evaluate it through their
 * automation channel, which the page's Content-Security-Policy (no eval) does not govern.
 */
const call = (fn, arg) => `(${fn})(${JSON.stringify(arg ?? null)})`;

/**
 * A function for the page that waits until `test(arg)` returns something truthy, checking every 50 ms, and
 * resolves to it; after `ms` it rejects with `what`. (A condition waited for, not a fixed sleep.)
 */
function waiter(test, arg, ms, what) {
  return `new Promise((resolve, reject) => {
    const started = performance.now();
    const poll = () => {
      let value;
      try { value = ${call(test, arg)}; } catch (error) { value = undefined; }
      if (value) return resolve(value);
      if (performance.now() - started > ${ms}) return reject(new Error(${JSON.stringify(`waited ${ms} ms for ${what}`)}));
      setTimeout(poll, 50);
    };
    poll();
  })`;
}

// Playwright's and Puppeteer's pages answer the same calls: one wrapper serves Chromium and Firefox.
function wrapPage(browser, page) {
  const errors = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(`console: ${m.text()}`));
  page.on('pageerror', (e) => errors.push(`page: ${e.message}`));
  return {
    errorsSoFar: async () => [...errors],
    open: (url) => page.goto(url),
    reload: () => page.reload(),
    run: (fn, arg) => page.evaluate(call(fn, arg)),
    waitFor: (fn, arg, ms = WAIT_MS) => page.evaluate(waiter(fn, arg, ms, String(fn))),
    click: (selector) => page.click(selector),
    screenshot: (file) => page.screenshot({ path: file }), // the viewport, as WebDriver's screenshots in WebKit
    close: () => browser.close(),
  };
}

async function startChromium() {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const context = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 1 });
  return wrapPage(browser, await context.newPage());
}

async function startFirefox() {
  const { default: puppeteer } = await import('puppeteer-core');
  const browser = await puppeteer.launch({ browser: 'firefox', executablePath: FIREFOX, headless: true, defaultViewport: VIEWPORT });
  return wrapPage(browser, await browser.newPage());
}

/** A free TCP port on 127.0.0.1 (for WebKitWebDriver, which needs one named). */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Xvfb on a display number it picks itself (-displayfd), so runs side by side never collide. */
async function startXvfb() {
  const xvfb = spawn('/usr/bin/Xvfb', ['-displayfd', '3', '-screen', '0', '1600x1200x24', '-nolisten', 'tcp'], { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
  let stderr = '';
  xvfb.stderr.on('data', (d) => (stderr += d));
  const display = await new Promise((resolve, reject) => {
    let out = '';
    xvfb.stdio[3].on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(`:${out.trim()}`);
    });
    xvfb.on('exit', (code) => reject(new Error(`Xvfb exited (${code}) before it opened a display: ${stderr.trim()}`)));
  });
  return { display, stop: () => xvfb.kill() };
}

/** Waits until WebKitWebDriver answers on `port`, or fails once it has exited. */
async function whenDriverReady(driver, port) {
  let exited = null;
  driver.on('exit', (code) => (exited = code));
  for (;;) {
    if (exited !== null) throw new Error(`WebKitWebDriver exited (${exited})`);
    try {
      const response = await fetch(`http://127.0.0.1:${port}/status`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function startWebKit() {
  const { Builder } = await import('selenium-webdriver');
  const xvfb = await startXvfb();
  const port = await freePort();
  const driver = spawn(WEBKIT_DRIVER, [`--port=${port}`], { stdio: 'ignore', env: { ...process.env, DISPLAY: xvfb.display } });
  let session;
  try {
    await whenDriverReady(driver, port);
    session = await new Builder()
      .usingServer(`http://127.0.0.1:${port}`)
      .withCapabilities({ browserName: 'MiniBrowser', 'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] } })
      .build();
    await session.manage().setTimeouts({ script: WAIT_MS + 10_000, pageLoad: WAIT_MS });
    await session.manage().window().setRect({ x: 0, y: 0, ...VIEWPORT });
  } catch (error) {
    driver.kill();
    xvfb.stop();
    throw error;
  }
  // WebKitWebDriver offers no console log: the page's own errors are caught in the page, from when each
  // navigation ends (an error while the page starts shows as a model that never loads, which the flows see).
  const errors = [];
  const catchErrors = () =>
    session.executeScript(`
      if (!window.__errors) {
        window.__errors = [];
        addEventListener('error', (e) => window.__errors.push('page: ' + e.message));
        addEventListener('unhandledrejection', (e) => window.__errors.push('page: ' + (e.reason && e.reason.message || e.reason)));
        const error = console.error.bind(console);
        console.error = (...args) => { window.__errors.push('console: ' + args.join(' ')); error(...args); };
      }`);
  const collect = async () => errors.push(...((await session.executeScript('return (window.__errors || []).splice(0)')) ?? []));
  const run = async (source) => {
    const answer = await session.executeAsyncScript(
      `const done = arguments[arguments.length - 1];
       Promise.resolve().then(() => ${source}).then((value) => done({ value }), (error) => done({ error: String(error && error.message || error) }));`,
    );
    if (answer.error !== undefined) throw new Error(answer.error);
    return answer.value;
  };
  return {
    async errorsSoFar() {
      await collect();
      return [...errors];
    },
    async open(url) {
      await session.get(url);
      await catchErrors();
    },
    async reload() {
      await collect();
      await session.navigate().refresh();
      await catchErrors();
    },
    run: (fn, arg) => run(call(fn, arg)),
    waitFor: (fn, arg, ms = WAIT_MS) => run(waiter(fn, arg, ms, String(fn))),
    async click(selector) {
      const { By } = await import('selenium-webdriver');
      await session.findElement(By.css(selector)).click();
    },
    async screenshot(file) {
      fs.writeFileSync(file, Buffer.from(await session.takeScreenshot(), 'base64')); // the viewport only
    },
    async close() {
      try {
        await session.quit();
      } finally {
        driver.kill();
        xvfb.stop();
      }
    },
  };
}
