#!/usr/bin/env node
// How responsive the page stays while it generates, as figures (never a test: a busy machine moves them).
// With stories260K and the page's default prompt, it streams 200 tokens with every inspection view in sight
// (a 1440 x 4200 window, so they all refresh) and prints, per run: the longest main-thread task while
// streaming (the Long Tasks API: tasks over 50 ms), how many such tasks there were, and the page's own
// speed figures (generation and prompt tokens/s, engine ms/token). Needs dist/ (npm run build) and models/.
//   node tests/peers/page-responsiveness.mjs [--repeat 3]
import { parseArgs } from 'node:util';
import { openPage, startEnvironment, whenModelLoaded } from '../browser/harness.mjs';

const { values } = parseArgs({ options: { repeat: { type: 'string', default: '3' } } });
const repeat = Number(values.repeat);

const env = await startEnvironment();
try {
  const { context, page, errors } = await openPage(env, {
    viewport: { width: 1440, height: 4200 },
    beforeLoad: (c) =>
      c.addInitScript(() => {
        window.__longTasks = [];
        new PerformanceObserver((list) => window.__longTasks.push(...list.getEntries().map((e) => e.duration))).observe({ type: 'longtask', buffered: true });
      }),
  });
  await whenModelLoaded(page);
  console.log(`engine: ${await page.evaluate(() => window.__glassbox.build)}`);
  console.log('run  longest task (ms)  tasks > 50 ms  tokens/s  prompt tokens/s  engine ms/token');
  for (let run = 1; run <= repeat; run++) {
    const before = await page.evaluate(() => {
      window.__longTasks.length = 0;
      return window.__glassbox.generations;
    });
    await page.click('#generate'); // the page's defaults: its prompt, 200 tokens
    await page.waitForFunction((n) => window.__glassbox.generations > n, before);
    await page.evaluate(() => window.__glassbox.whenIdle());
    await page.evaluate(() => window.__glassbox.whenAttentionDrawn());
    const tasks = await page.evaluate(() => window.__longTasks.slice());
    const stat = (id) => page.evaluate((s) => document.querySelector(`#${s} strong`)?.textContent ?? '—', id);
    const longest = Math.max(0, ...tasks);
    console.log(
      `${String(run).padStart(3)}  ${longest.toFixed(0).padStart(17)}  ${String(tasks.length).padStart(13)}  ${(await stat('stat-rate')).padStart(8)}  ${(await stat('stat-prompt-rate')).padStart(15)}  ${(await stat('stat-engine')).padStart(15)}`,
    );
  }
  if (errors.length) console.log(`console errors: ${errors.join('; ')}`);
  await context.close();
} finally {
  await env.close();
}
