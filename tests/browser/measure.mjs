// measure.mjs: how fast a big `prof svg` flamegraph loads and zooms in
// headless chromium, measured in the page with performance.now(). Used by
// flamegraph.test.mjs (reported as TAP comments, never asserted) and, as a
// command, by bench/svg-browser.sh:
//
//   node tests/browser/measure.mjs [--frames N] [--runs R] [--markdown]
//
// PROF (default build/prof) draws the SVG from synthetic folded text with
// N (50,000) frames and --minwidth 0. Each of R (5) runs opens it in a new
// page from a file:// URL and records:
//   - dcl: the end of DOMContentLoaded (the document parsed, the flamegraph
//     script's start() done: every frame read, labels laid out);
//   - load: the end of the load event;
//   - rendered: the first frame produced after load (a task queued from a
//     requestAnimationFrame callback);
// then zooms with a click event on a frame and times until the next frame
// has been produced: the root's heaviest child (the most frames to
// rescale), a frame in the middle of the tree, and the reset (back to all).
// All times in ms; medians over the runs.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { launchBrowser, syntheticFolded, AFTER_NEXT_FRAME } from './lib.mjs';

const ROOT = resolve(new URL('../..', import.meta.url).pathname);

function median(xs) {
	const s = [...xs].sort((a, b) => a - b);
	const n = s.length;
	return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

// Times one click on frame I, in the page: the click handler's own time and
// the time until the next frame has been produced.
const CLICK = `async (i) => {
	const el = window.flamegraph.frame(i).element.lastElementChild;
	const t0 = performance.now();
	el.dispatchEvent(new MouseEvent('click', {bubbles: true}));
	const t1 = performance.now();
	await ${AFTER_NEXT_FRAME};
	return {handler: t1 - t0, frame: performance.now() - t0, zoomed: window.flamegraph.state().zoomed};
}`;

export async function measure({ prof, frames = 50000, runs = 5, browser = null, log = () => {} }) {
	const dir = mkdtempSync(join(tmpdir(), 'prof-svg-measure-'));
	const own = !browser;
	try {
		const folded = join(dir, 'big.folded');
		const svg = join(dir, 'big.svg');
		writeFileSync(folded, syntheticFolded(frames));
		execFileSync(prof, ['svg', '-i', folded, '--minwidth', '0', '-o', svg]);
		const bytes = statSync(svg).size;
		if (own)
			browser = await launchBrowser();
		const url = pathToFileURL(svg).href;
		const samples = { dcl: [], load: [], rendered: [], zoomBig: [], zoomMid: [], reset: [],
			handlerBig: [] };
		let info = null;
		for (let r = 0; r < runs; r++) {
			const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
			const errors = [];
			page.on('pageerror', (e) => errors.push(String(e)));
			await page.addInitScript(() => {
				window.addEventListener('load', () => {
					requestAnimationFrame(() => setTimeout(() => {
						window.__renderedAt = performance.now();
					}, 0));
				}, { once: true });
			});
			await page.goto(url, { waitUntil: 'load' });
			await page.waitForFunction(() => window.__renderedAt !== undefined);
			const t = await page.evaluate(() => {
				const nav = performance.getEntriesByType('navigation')[0];
				const fg = window.flamegraph;
				// the root's heaviest child, and a frame about halfway down
				// the frame list that has children
				let big = 1, mid = -1;
				const n = fg.frames();
				for (let i = 1; i < n; i++)
					if (fg.frame(i).parent === 0 && fg.frame(i).count > fg.frame(big).count)
						big = i;
				for (let i = Math.floor(n / 2); i < n - 1 && mid < 0; i++)
					if (fg.frame(i + 1).parent === i)
						mid = i;
				return { dcl: nav.domContentLoadedEventEnd, load: nav.loadEventEnd,
					rendered: window.__renderedAt, n, big, mid, depth: fg.frame(mid).depth,
					elements: document.getElementsByTagName('*').length };
			});
			samples.dcl.push(t.dcl);
			samples.load.push(t.load);
			samples.rendered.push(t.rendered);
			const big = await page.evaluate(`(${CLICK})(${t.big})`);
			const reset = await page.evaluate(`(${CLICK})(0)`);
			const mid = await page.evaluate(`(${CLICK})(${t.mid})`);
			if (big.zoomed !== t.big || reset.zoomed !== 0 || mid.zoomed !== t.mid)
				throw new Error(`zoom did not take: ${JSON.stringify({ big, reset, mid })}`);
			samples.zoomBig.push(big.frame);
			samples.handlerBig.push(big.handler);
			samples.reset.push(reset.frame);
			samples.zoomMid.push(mid.frame);
			if (errors.length)
				throw new Error(`page errors: ${errors.join('; ')}`);
			if (!info) {
				// frames in a subtree (the frame and those above it)
				const subtree = (b) => page.evaluate((i) => {
					const fg = window.flamegraph, d = fg.frame(i).depth;
					let end = i + 1;
					while (end < fg.frames() && fg.frame(end).depth > d)
						end++;
					return end - i;
				}, b);
				const shownBig = await subtree(t.big), shownMid = await subtree(t.mid);
				info = { frames: t.n, bytes, elements: t.elements, big: t.big, bigSubtree: shownBig,
					mid: t.mid, midDepth: t.depth, midSubtree: shownMid };
			}
			log(`run ${r + 1}: rendered ${t.rendered.toFixed(0)} ms, zoom ${big.frame.toFixed(0)} ms`);
			await page.close();
		}
		const med = {};
		for (const [k, v] of Object.entries(samples))
			med[k] = median(v);
		return { info, median: med, samples, runs };
	} finally {
		if (own && browser)
			await browser.close();
		rmSync(dir, { recursive: true, force: true });
	}
}

async function main() {
	const args = process.argv.slice(2);
	const opt = (name, dflt) => {
		const i = args.indexOf(name);
		return i >= 0 ? Number(args[i + 1]) : dflt;
	};
	const prof = process.env.PROF || join(ROOT, 'build/prof');
	const res = await measure({ prof, frames: opt('--frames', 50000), runs: opt('--runs', 5),
		log: (s) => process.stderr.write(`svg-browser: ${s}\n`) });
	if (args.includes('--markdown'))
		process.stdout.write(markdown(res));
	else
		process.stdout.write(JSON.stringify(res, null, 1) + '\n');
}

// The results as a markdown table: medians, and min-max over the runs.
function markdown(res) {
	const { info, median: m, samples: s } = res;
	const f = (k) => `${m[k].toFixed(0)} (${Math.min(...s[k]).toFixed(0)}–${Math.max(...s[k]).toFixed(0)})`;
	return [
		`${info.frames} frames (\`--minwidth 0\`), ${info.bytes} bytes of SVG ` +
			`(${(info.bytes / info.frames).toFixed(1)} B/frame), ${info.elements} DOM elements; ` +
			`${res.runs} runs, each in a new page of one headless chromium (1280×900); ` +
			'median ms (min–max).',
		'',
		'| measure | ms | target |',
		'|---|---:|---:|',
		`| DOMContentLoaded done (parsed, script started, ${info.frames} frames read, labels drawn) | ${f('dcl')} | |`,
		`| load event done | ${f('load')} | |`,
		`| first frame produced after load (load + render) | ${f('rendered')} | < 2000 |`,
		`| zoom into the root's heaviest child (${info.bigSubtree} frames rescaled), to the next frame | ${f('zoomBig')} | < 300 |`,
		`| … of which the click handler | ${f('handlerBig')} | |`,
		`| reset zoom (click on all), to the next frame | ${f('reset')} | < 300 |`,
		`| zoom into frame ${info.mid} (mid-tree: depth ${info.midDepth}, ${info.midSubtree} frames), to the next frame | ${f('zoomMid')} | < 300 |`,
		'',
	].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1]).href)
	main().catch((e) => {
		console.error(e);
		process.exit(1);
	});
