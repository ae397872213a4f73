// timeline-measure.mjs: how fast a `prof svg --timeline` page loads and
// draws a selected range in headless chromium (bench/timeline.sh), timed
// in the page with performance.now(): the page's own start (data-ready),
// the first frame produced after it, then selections (the first decodes
// the stack table), each until the next frame has been produced.
//
//   node timeline-measure.mjs PAGE.svg [RUNS] [RANGE_MS ...]
// RANGE_MS: START-END in ms from the recording's start (default: a 2 s
// range at 3:14:00, one hour from 3:00, the whole recording). Prints
// markdown rows.
import { launchBrowser } from './lib.mjs';
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [page_path, runsArg, ...rangesArg] = process.argv.slice(2);
const RUNS = Number(runsArg || 3);
const url = pathToFileURL(resolve(page_path)).href;
const ranges = rangesArg.length ? rangesArg : ['11640000-11642000', '10800000-14400000', 'all'];
const AFTER_FRAME = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));

const browser = await launchBrowser();
const rows = [];
for (let run = 0; run < RUNS; run++) {
	const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
	page.on('pageerror', (e) => console.error('# page error: ' + e.message));
	const t0 = Date.now();
	await page.goto(url, { waitUntil: 'load', timeout: 300000 });
	await page.waitForSelector('svg[data-ready="1"]', { state: 'attached', timeout: 300000 });
	const nav = await page.evaluate(async (f) => {
		await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
		const e = performance.getEntriesByType('navigation')[0];
		return { dcl: e.domContentLoadedEventEnd, load: e.loadEventEnd, frame: performance.now() };
	});
	const sel = [];
	for (const r of ranges) {
		const ms = await page.evaluate(async (r) => {
			const t = window.timeline;
			const cells = t.columns * t.rows;
			let c0 = 0, c1 = cells - 1;
			if (r !== 'all') {
				const [a, b] = r.split('-').map(Number);
				c0 = Math.floor(a / t.cellMs);
				c1 = Math.ceil(b / t.cellMs) - 1;
			}
			const s = performance.now();
			t.select(c0, c1);
			await new Promise((res) => requestAnimationFrame(() => setTimeout(res, 0)));
			return { ms: performance.now() - s, total: t.selection().total, drawn: t.drawn().length };
		}, r);
		sel.push(ms);
	}
	rows.push({ wall: Date.now() - t0, ...nav, sel });
	await page.close();
}
await browser.close();
const size = statSync(page_path).size;
console.log(`page: ${page_path}, ${size.toLocaleString('en-US')} bytes`);
console.log('');
console.log('| run | DOMContentLoaded ms | load ms | first frame ms | ' +
	ranges.map((r) => `select ${r} ms (samples, frames drawn)`).join(' | ') + ' |');
console.log('|---:|---:|---:|---:|' + ranges.map(() => '---:').join('|') + '|');
rows.forEach((r, i) => console.log(`| ${i + 1} | ${r.dcl.toFixed(0)} | ${r.load.toFixed(0)} | ` +
	`${r.frame.toFixed(0)} | ` + r.sel.map((s) => `${s.ms.toFixed(0)} (${s.total.toLocaleString('en-US')}, ${s.drawn})`).join(' | ') + ' |'));
