// load-time.mjs: how long given SVG files take to show in headless
// chromium, and what the first search costs (bench/svg-browser.sh's
// size part; docs/BENCHMARKS-svg-size.md):
//
//   node tests/browser/load-time.mjs [--runs R] [--search RE] FILE.svg...
//
// Per file, R (3) runs, each in a new page from a file:// URL: the end of
// parsing (DOMContentLoaded's start), of DOMContentLoaded (the script's
// start() done), of load, and the
// first frame produced after load; a hover over the root's heaviest
// child, a zoom into it and the reset (each until the next frame has been
// produced); then, with --search, the time of
// window.flamegraph.search(RE) (the first search reads the hidden frames'
// table) and of a second search of the same pattern, and Matched. Prints
// one JSON line per file: medians in ms. cpu is the renderer main
// thread's CPU time until the first frame after load, script and layout
// (with style) its parts (Chrome's Performance.getMetrics): figures a
// loaded machine inflates less than wall times.
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { launchBrowser, AFTER_NEXT_FRAME } from './lib.mjs';

function median(xs) {
	const s = [...xs].sort((a, b) => a - b);
	const n = s.length;
	return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

// A click on frame I's rect (a zoom), or a mouseover (hover): ms until
// the next frame has been produced.
const EVENT = `async (i, type) => {
	const el = window.flamegraph.frame(i).element.lastElementChild;
	const t0 = performance.now();
	el.dispatchEvent(new MouseEvent(type, {bubbles: true}));
	await ${AFTER_NEXT_FRAME};
	return performance.now() - t0;
}`;

// The root's heaviest child.
const HEAVIEST = `(() => {
	const fg = window.flamegraph;
	let big = 1;
	for (let i = 1; i < fg.frames(); i++)
		if (fg.frame(i).parent === 0 && fg.frame(i).count > fg.frame(big).count)
			big = i;
	return big;
})()`;

const SEARCH = `async (q) => {
	const fg = window.flamegraph;
	let t0 = performance.now();
	await fg.search(q);
	await ${AFTER_NEXT_FRAME};
	const first = performance.now() - t0;
	fg.search('');
	t0 = performance.now();
	await fg.search(q);
	await ${AFTER_NEXT_FRAME};
	return {first, again: performance.now() - t0, matched: document.getElementById('matched').textContent};
}`;

async function main() {
	const args = process.argv.slice(2);
	let runs = 3, query = null;
	const files = [];
	for (let i = 0; i < args.length; i++) {
		if (args[i] === '--runs')
			runs = Number(args[++i]);
		else if (args[i] === '--search')
			query = args[++i];
		else
			files.push(resolve(args[i]));
	}
	const browser = await launchBrowser();
	try {
		for (const f of files) {
			const s = { cpu: [], script: [], layout: [], parsed: [], hover: [], zoom: [], reset: [], dcl: [], load: [], rendered: [], search: [], again: [] };
			let matched = '';
			for (let r = 0; r < runs; r++) {
				const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
				const errors = [];
				page.on('pageerror', (e) => errors.push(String(e)));
				await page.addInitScript(() => {
					document.addEventListener('DOMContentLoaded', () => {
						window.__parsedAt = performance.now();
					}, { once: true });
					window.addEventListener('load', () => {
						requestAnimationFrame(() => setTimeout(() => {
							window.__renderedAt = performance.now();
						}, 0));
					}, { once: true });
				});
				const cdp = await page.context().newCDPSession(page);
				await cdp.send('Performance.enable', { timeDomain: 'threadTicks' });
				await page.goto(pathToFileURL(f).href, { waitUntil: 'load', timeout: 120000 });
				await page.waitForFunction(() => window.__renderedAt !== undefined, null,
					{ timeout: 120000 });
				const t = await page.evaluate(() => {
					const nav = performance.getEntriesByType('navigation')[0];
					return { parsed: window.__parsedAt, dcl: nav.domContentLoadedEventEnd, load: nav.loadEventEnd,
						rendered: window.__renderedAt };
				});
				const pm = {};
				for (const m of (await cdp.send('Performance.getMetrics')).metrics)
					pm[m.name] = m.value;
				s.cpu.push(pm.ThreadTime * 1000);
				s.script.push(pm.ScriptDuration * 1000);
				s.layout.push((pm.LayoutDuration + pm.RecalcStyleDuration) * 1000);
				s.parsed.push(t.parsed);
				s.dcl.push(t.dcl);
				s.load.push(t.load);
				s.rendered.push(t.rendered);
				const big = await page.evaluate(HEAVIEST);
				s.hover.push(await page.evaluate(`(${EVENT})(${big}, 'mouseover')`));
				s.zoom.push(await page.evaluate(`(${EVENT})(${big}, 'click')`));
				s.reset.push(await page.evaluate(`(${EVENT})(0, 'click')`));
				if (query !== null) {
					const q = await page.evaluate(`(${SEARCH})(${JSON.stringify(query)})`);
					s.search.push(q.first);
					s.again.push(q.again);
					matched = q.matched;
				}
				if (errors.length)
					throw new Error(`${f}: page errors: ${errors.join('; ')}`);
				await page.close();
			}
			const out = { file: f, bytes: statSync(f).size, runs, matched };
			for (const [k, v] of Object.entries(s))
				if (v.length)
					out[k] = Math.round(median(v));
			process.stdout.write(JSON.stringify(out) + '\n');
		}
	} finally {
		await browser.close();
	}
}

main().catch((e) => {
	console.error(e);
	process.exit(1);
});
