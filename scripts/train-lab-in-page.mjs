// One-off measurement (not a test): the page's training lab on the copy task, as a person would run it in
// Chromium: the first preset (2 layers, dim 64, 2 heads, context 192), the copy task, STEPS steps (6,000 by
// default) at the lab's default settings. Prints the wall time, tokens/s, the loss along the way, every head's
// induction score at each measurement and the first step at which a head scores 0.4 or more (inspect's
// threshold for an induction head). Compare with `python3 scripts/copy_task.py --threads 1` natively.
//   node scripts/train-lab-in-page.mjs [STEPS] [SCREENSHOT.png]
// Needs dist/ (npm run build) with a model (stories260K: its tok512 vocabulary) and Debian's chromium.
import { openPage, startEnvironment, whenModelLoaded } from '../tests/browser/harness.mjs';

const steps = Number(process.argv[2] ?? 6000);
const shot = process.argv[3];
const env = await startEnvironment();
try {
  const { page, errors } = await openPage(env);
  await whenModelLoaded(page);
  const lab = page.locator('#train-lab');
  await lab.scrollIntoViewIfNeeded();
  await lab.locator('select').nth(0).selectOption('induction');
  await lab.locator('select').nth(1).selectOption('copy');
  await lab.getByRole('spinbutton', { name: 'Steps', exact: true }).fill(String(steps));
  const started = Date.now();
  await lab.locator('.train-start').click();
  await page.waitForFunction(() => ['done', 'error'].includes(document.querySelector('.train-lab').dataset.state), null, { timeout: 3_600_000, polling: 2_000 });
  const wall = (Date.now() - started) / 1000;
  const r = await page.evaluate(() => window.__glassbox.train.record);
  const sorted = [...r.tokensPerSecond].slice(Math.floor(r.tokensPerSecond.length / 2)).sort((a, b) => a - b);
  console.log(`${r.losses.length} steps in ${wall.toFixed(0)} s wall (${r.seconds.toFixed(0)} s in the worker's steps), median ${Math.round(sorted[Math.floor(sorted.length / 2)])} tokens/s over the second half`);
  const every = Math.max(1, Math.floor(r.losses.length / 12));
  console.log('loss: ' + r.losses.filter((_, i) => i % every === 0).map((l, i) => `${i * every}:${l.toFixed(2)}`).join(' '));
  let formed = null;
  for (const m of r.induction) {
    const best = Math.max(...m.scores);
    const head = m.scores.indexOf(best);
    console.log(`step ${m.step}: best induction score ${best.toFixed(3)} (L${Math.floor(head / r.heads)}H${head % r.heads})`);
    if (formed === null && best >= 0.4) formed = m.step;
  }
  console.log(formed === null ? 'no head reached 0.4' : `a head first scores >= 0.4 at step ${formed}`);
  if (shot) await lab.screenshot({ path: shot });
  if (errors.length) console.log('errors:', errors);
} finally {
  await env.close();
}
