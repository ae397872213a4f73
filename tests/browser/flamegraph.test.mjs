// flamegraph.test.mjs: the SVG `prof svg` writes, in a real browser (Debian's
// chromium, headless, driven by playwright-core; file:// URLs, no network).
// Run by tests/browser/run.sh (TAP, for prove). The graph is made from a real
// recording of examples/threads; what the page shows is checked against a
// model of the flamegraph computed from `prof report`'s folded text alone
// (lib.mjs): names and counts on hover, geometry on zoom, matched % of
// searches (also while zoomed), the URL state, and that hostile names are
// text. The load and zoom times of a 50,000-frame graph are measured and
// printed as TAP comments, not asserted (measure.mjs; bench/svg-browser.sh).
//
// Env: PROF (build/prof), EXAMPLES (build/examples), CHROMIUM
// (/usr/bin/chromium), MEASURE_FRAMES (50000; 0 skips the measurement),
// MEASURE_RUNS (3, the runs whose medians are printed; tools/run-tests.sh
// asks for 1, which still fails on a page error or a zoom that did not take).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
	launchBrowser, parseFolded, modelFrames, modelMatched, foldedShare, foldedShareUnder,
	hiddenFrames, syntheticFolded, pct, AFTER_NEXT_FRAME,
} from './lib.mjs';
import { measure } from './measure.mjs';

const ROOT = resolve(new URL('../..', import.meta.url).pathname);
const PROF = process.env.PROF || join(ROOT, 'build/prof');
const EXAMPLES = process.env.EXAMPLES || join(ROOT, 'build/examples');
const MEASURE_FRAMES = Number(process.env.MEASURE_FRAMES ?? 50000);
const MEASURE_RUNS = Math.max(1, Number(process.env.MEASURE_RUNS ?? 3));

let dir, browser, svgUrl, stacks, model, total;
const ALPHA = ['alpha', 'alpha_thread', 'alpha_outer'];

function run(cmd, args, input) {
	return execFileSync(cmd, args, { input, stdio: ['pipe', 'pipe', 'pipe'], maxBuffer: 1 << 28 });
}

// The index of the first frame named by the last of NAMES whose callers
// include the others, in order (not necessarily adjacent: the thread start
// routine between the thread's name and alpha_thread is [libc.so.6+OFFSET]
// or start_thread, depending on the libc build), or -1.
function pathIndex(names) {
	const last = names[names.length - 1];
	for (let i = 1; i < model.length; i++) {
		if (model[i].name !== last)
			continue;
		let want = names.length - 2;
		for (let j = model[i].parent; j > 0 && want >= 0; j = model[j].parent)
			if (model[j].name === names[want])
				want--;
		if (want < 0)
			return i;
	}
	return -1;
}

// A new page on URL, with every dialog, page error and console error logged.
// OPTIONS: more of browser.newPage's (permissions).
async function open(url = svgUrl, options = {}) {
	const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, ...options });
	page.events = { dialogs: [], errors: [] };
	page.on('dialog', (d) => {
		page.events.dialogs.push({ type: d.type(), message: d.message() });
		if (page.answer !== undefined && d.type() === 'prompt') {
			const a = page.answer;
			page.answer = undefined;
			return d.accept(a);
		}
		return d.dismiss();
	});
	page.on('pageerror', (e) => page.events.errors.push(String(e)));
	page.on('console', (m) => {
		if (m.type() === 'error')
			page.events.errors.push(`console: ${m.text()}`);
	});
	await page.goto(url, { waitUntil: 'load' });
	await page.waitForFunction(() => document.documentElement.getAttribute('data-ready') === '1');
	return page;
}

const frameRect = (i) => `#frames > g:nth-child(${i + 1}) > rect`;
const text = (page, sel) => page.locator(sel).textContent();
const settle = (page) => page.evaluate(AFTER_NEXT_FRAME);
const state = (page) => page.evaluate(() => window.flamegraph.state());
const box = (page, i) => page.locator(frameRect(i)).boundingBox();

// Whether frame I shows inside the graph's area (not hidden, not clipped
// away to either side of the picture). The extent is the root <svg>'s: a
// zoom leaves out-of-view frames in svg#frames, clipped, so that element's
// own box still spans them.
async function shows(page, i) {
	const b = await box(page, i);
	const full = await page.evaluate(() => {
		const r = document.documentElement.getBoundingClientRect();
		return {x: r.x, width: r.width};
	});
	return !!b && b.width > 0 && (await page.locator(frameRect(i)).isVisible()) &&
		b.x < full.x + full.width - 0.5 && b.x + b.width > full.x + 0.5;
}

// Answers the next prompt with ANSWER, then clicks SELECTOR or presses KEY.
async function ask(page, answer, how) {
	page.answer = answer;
	if (how.key)
		await page.keyboard.press(how.key);
	else
		await page.click(how.click);
	await settle(page);
	assert.equal(page.answer, undefined, `no search prompt appeared (${JSON.stringify(how)})`);
}

function checkClean(page) {
	assert.deepEqual(page.events.errors, [], 'no page errors');
}

before(async () => {
	dir = mkdtempSync(join(tmpdir(), 'prof-browser-'));
	const rec = join(dir, 'threads.data');
	run(PROF, ['record', '-q', '-F', '999', '-o', rec, '--', join(EXAMPLES, 'threads'), '2']);
	run(PROF, ['svg', '-i', rec, '--threads', '-o', join(dir, 'threads.svg')]);
	stacks = parseFolded(run(PROF, ['report', '-i', rec, '--threads']).toString());
	model = modelFrames(stacks);
	total = model[0].count;
	svgUrl = pathToFileURL(join(dir, 'threads.svg')).href;
	browser = await launchBrowser();
});

after(async () => {
	if (browser)
		await browser.close();
	if (dir && !process.env.KEEP)
		rmSync(dir, { recursive: true, force: true });
});

test('the page reads the frames prof svg drew from the folded stacks', async () => {
	const page = await open();
	const got = await page.evaluate(() => {
		const fg = window.flamegraph, out = [];
		for (let i = 0; i < fg.frames(); i++) {
			const f = fg.frame(i);
			out.push({ name: f.name, count: f.count, depth: f.depth, parent: f.parent });
		}
		return out;
	});
	assert.deepEqual(got, model.map(({ name, count, depth, parent }) => ({ name, count, depth, parent })));
	assert.ok(total > 500, `enough samples (${total})`);
	checkClean(page);
	await page.close();
});

test('hover over burn_alpha: name, count and % in the status line', async () => {
	const page = await open();
	const i = pathIndex([...ALPHA, 'alpha_inner', 'burn_alpha']);
	assert.ok(i > 0, 'burn_alpha is drawn');
	const f = model[i];
	assert.equal(await text(page, '#details'), '');
	await page.hover(frameRect(i));
	const want = `burn_alpha (${f.count.toLocaleString('en-US')} samples, ${pct((100 * f.count) / total)}%)`;
	assert.equal(await text(page, '#details'), want);
	// the tooltip: the full name and the count
	assert.equal(await page.locator(`#frames > g:nth-child(${i + 1}) > title`).textContent(),
		`burn_alpha (${f.count.toLocaleString('en-US')} samples)`);
	await page.mouse.move(1, 1);
	assert.equal(await text(page, '#details'), '', 'cleared on mouseout');
	checkClean(page);
	await page.close();
});

test('click alpha_outer: it spans the full width, children rescale, others hide', async () => {
	const page = await open();
	const o = pathIndex(ALPHA);
	const kid = pathIndex([...ALPHA, 'alpha_inner']);
	const beta = pathIndex(['beta']);
	assert.ok(o > 0 && kid > 0 && beta > 0);
	const full = await page.locator('#frames').boundingBox();
	const before0 = await box(page, o), kid0 = await box(page, kid);
	assert.ok(before0.width < 0.9 * full.width, 'alpha_outer is not full width before');
	await page.click(frameRect(o));
	await settle(page);
	const before1 = await box(page, o), kid1 = await box(page, kid);
	assert.ok(Math.abs(before1.width - full.width) <= 1 && Math.abs(before1.x - full.x) <= 1,
		`alpha_outer spans the width: ${JSON.stringify(before1)} vs ${JSON.stringify(full)}`);
	const r0 = kid0.width / before0.width, r1 = kid1.width / before1.width;
	assert.ok(Math.abs(r0 - r1) <= 0.01, `child/parent ratio kept: ${r0} -> ${r1}`);
	assert.ok(kid1.width > kid0.width * 1.5, `child wider: ${kid0.width} -> ${kid1.width}`);
	// callers span the width and stay visible; other threads are hidden
	const thread = await box(page, pathIndex(['alpha']));
	assert.ok(Math.abs(thread.width - full.width) <= 1, 'the alpha thread frame spans the width');
	assert.equal(await shows(page, beta), false, 'beta hidden');
	assert.equal(await shows(page, kid), true, 'alpha_inner shown');
	assert.equal(await page.locator('#unzoom').isVisible(), true, 'Reset Zoom shown');
	const s = await state(page);
	assert.equal(s.zoomed, o);
	// hover while zoomed: % of the zoomed frame too
	const b = pathIndex([...ALPHA, 'alpha_inner', 'burn_alpha']);
	await page.hover(frameRect(b));
	const details = await text(page, '#details');
	assert.ok(details.endsWith(`, ${pct((100 * model[b].count) / model[o].count)}% of alpha_outer)`), details);
	// clicking a caller zooms out to it
	await page.click(frameRect(pathIndex(['alpha'])));
	await settle(page);
	assert.equal((await state(page)).zoomed, pathIndex(['alpha']));
	assert.equal(await shows(page, beta), false);
	checkClean(page);
	await page.close();
});

test('search burn_ (button and Ctrl-F): matched % as computed from the folded text', async () => {
	const page = await open();
	const re = /burn_/;
	const want = modelMatched(model, re);
	const raw = foldedShare(stacks, re);
	// the model prunes as prof svg does (frames under 0.1% of the total);
	// a search cannot find pruned frames, which this input keeps to a few
	// samples: the straight share from the folded lines is within 0.25 points
	assert.ok(Math.abs(want.percent - raw) <= 0.25, `model ${want.percent} vs folded ${raw}`);
	await ask(page, 'burn_', { click: '#search' });
	assert.equal(await text(page, '#matched'), `Matched: ${pct(want.percent)}%`);
	assert.equal(await text(page, '#search'), 'Reset Search');
	const marked = await page.locator('#frames > g.m').count();
	assert.equal(marked, model.filter((f, i) => i > 0 && re.test(f.name)).length, 'matches highlighted');
	// Reset Search, then the same through Ctrl-F, with another regex
	await page.click('#search');
	assert.equal(await text(page, '#matched'), '');
	assert.equal(await page.locator('#frames > g.m').count(), 0);
	const re2 = /burn_(alpha|beta)$/;
	await ask(page, re2.source, { key: 'Control+f' });
	assert.equal(await text(page, '#matched'), `Matched: ${pct(modelMatched(model, re2).percent)}%`);
	assert.ok(Math.abs(modelMatched(model, re2).percent - foldedShare(stacks, re2)) < 0.25);
	// nested matches count once: alpha_ matches alpha_thread, alpha_outer
	// and alpha_inner, one inside the other; the share is the outermost
	// matches' (not all of thread alpha's: a sample in the thread's start-up
	// or exit, such as glibc's madvise of its stack, has no alpha_ frame)
	await page.keyboard.press('Escape');
	await ask(page, 'alpha_', { key: 'Control+f' });
	const nested = modelMatched(model, /alpha_/);
	const every = model.reduce((s, f, i) => s + (i > 0 && /alpha_/.test(f.name) ? f.count : 0), 0);
	assert.ok(every > 1.5 * nested.count, `nested frames would count twice: ${every} vs ${nested.count}`);
	assert.ok(Math.abs(nested.percent - foldedShare(stacks, /alpha_/)) < 0.25);
	assert.equal(await text(page, '#matched'), `Matched: ${pct(nested.percent)}%`);
	checkClean(page);
	await page.close();
});

test('while zoomed, matched % counts only what is visible', async () => {
	const page = await open();
	const alpha = pathIndex(['alpha']);
	const re = /burn_/;
	await ask(page, 'burn_', { click: '#search' });
	await page.click(frameRect(alpha));
	await settle(page);
	const want = modelMatched(model, re, alpha);
	// Some of alpha's samples are outside burn_ (its clock and sleep calls,
	// about 1% here, more when the machine is busy): a partial match.
	assert.ok(want.percent > 50 && want.percent < 100, `alpha: ${want.percent}`);
	assert.equal(await text(page, '#matched'), `Matched: ${pct(want.percent)}%`);
	// zoomed into a matching frame: all of it
	const b = pathIndex([...ALPHA, 'alpha_inner', 'burn_alpha']);
	await page.click(frameRect(b));
	await settle(page);
	assert.equal(await text(page, '#matched'), 'Matched: 100.00%');
	// zoomed into beta's subtree, a search for alpha's function finds nothing
	await page.click('#unzoom');
	await page.click(frameRect(pathIndex(['beta'])));
	await ask(page, 'burn_alpha', { key: 'Control+f' }); // a new search while one is active
	assert.equal(await text(page, '#matched'), 'Matched: 0.00%');
	checkClean(page);
	await page.close();
});

test('an invalid regex is reported, the page keeps working', async () => {
	const page = await open();
	await ask(page, 'burn_(', { click: '#search' });
	assert.match(await text(page, '#details'), /^Invalid regex: /);
	assert.equal(await text(page, '#matched'), 'Invalid regex');
	assert.equal(await page.locator('#frames > g.m').count(), 0);
	checkClean(page);
	// a valid search afterwards works
	await page.click('#search'); // "Reset Search"
	await ask(page, 'burn_', { click: '#search' });
	assert.equal(await text(page, '#matched'), `Matched: ${pct(modelMatched(model, /burn_/).percent)}%`);
	assert.equal(await text(page, '#details'), '');
	// hover still works and then shows the status again
	await page.hover(frameRect(pathIndex(['beta'])));
	assert.match(await text(page, '#details'), /^beta \(/);
	checkClean(page);
	await page.close();
});

test('ignore case toggles', async () => {
	const page = await open();
	await ask(page, 'BURN_', { click: '#search' });
	assert.equal(await text(page, '#matched'), 'Matched: 0.00%');
	await page.click('#ignorecase');
	await settle(page);
	assert.equal(await page.locator('#ignorecase.on').count(), 1);
	assert.equal(await text(page, '#matched'), `Matched: ${pct(modelMatched(model, /burn_/i).percent)}%`);
	assert.ok((await state(page)).ignoreCase);
	await page.click('#ignorecase');
	assert.equal(await text(page, '#matched'), 'Matched: 0.00%');
	assert.equal(await page.locator('#ignorecase.on').count(), 0);
	checkClean(page);
	await page.close();
});

test('reset restores the original view', async () => {
	const page = await open();
	const geometry = () => page.evaluate(() => [...document.querySelectorAll('#frames > g')].map((g) => {
		const r = g.lastElementChild;
		return [g.getAttribute('class') || '', r.getAttribute('x'), r.getAttribute('width'),
			getComputedStyle(g).display];
	}));
	const labels = () => page.locator('#labels text').allTextContents();
	const g0 = await geometry(), l0 = await labels();
	await page.click(frameRect(pathIndex(ALPHA)));
	await settle(page);
	assert.notDeepEqual(await geometry(), g0);
	await page.click('#unzoom');
	await settle(page);
	assert.deepEqual(await geometry(), g0, 'every frame back in place');
	assert.deepEqual(await labels(), l0, 'labels back');
	assert.equal(await page.locator('#unzoom').isVisible(), false);
	// Escape resets too, and so does a click on the root
	await page.click(frameRect(pathIndex(ALPHA)));
	await page.keyboard.press('Escape');
	await settle(page);
	assert.deepEqual(await geometry(), g0, 'Escape resets');
	await page.click(frameRect(pathIndex(ALPHA)));
	await page.click(frameRect(0));
	await settle(page);
	assert.deepEqual(await geometry(), g0, 'a click on all resets');
	checkClean(page);
	await page.close();
});

test('the URL carries zoom and search; reloading or opening it restores them', async () => {
	const page = await open();
	const o = pathIndex(ALPHA);
	await page.click(frameRect(o));
	await ask(page, 'burn_', { click: '#search' });
	await page.click('#ignorecase');
	const url = page.url();
	assert.equal(new URL(url).hash, `#x=${o}&s=burn_&i=1`);
	const want = await state(page);
	const wantBox = await box(page, pathIndex([...ALPHA, 'alpha_inner']));
	await page.reload({ waitUntil: 'load' });
	await page.waitForFunction(() => document.documentElement.getAttribute('data-ready') === '1');
	await settle(page);
	assert.deepEqual(await state(page), want, 'reload restores the state');
	assert.deepEqual(await box(page, pathIndex([...ALPHA, 'alpha_inner'])), wantBox);
	// a link opened in a fresh page
	const other = await open(url);
	await settle(other);
	assert.deepEqual(await state(other), want, 'a link restores the state');
	assert.equal(await text(other, '#matched'), `Matched: ${pct(want.matched.percent)}%`);
	// editing the fragment applies it; a special character survives encoding
	await other.evaluate(() => { location.hash = '#s=' + encodeURIComponent('alpha_(inner|outer)'); });
	await other.waitForFunction(() => window.flamegraph.state().query === 'alpha_(inner|outer)');
	assert.equal((await state(other)).zoomed, 0);
	// reset: the fragment empties
	await other.click('#search');
	assert.equal(new URL(other.url()).hash, '');
	checkClean(page);
	checkClean(other);
	await page.close();
	await other.close();
});

test('a function named <script>alert(1)</script> is text and runs nothing', async () => {
	const names = ['<script>alert(1)</script>', '"><img src=x onerror=alert(2)>',
		"]]><script>alert(3)</script>", "')+alert(4)+('", '<![CDATA[x]]>&amp&lt&#60 \u0007'];
	const folded = names.map((n, k) => `main;${n};leaf${k} ${10 + k}\n`).join('');
	const svg = join(dir, 'hostile.svg');
	run(PROF, ['svg', '-i', '-', '-o', svg], folded); // -i -: node's stdin pipe is a socketpair
	const page = await open(pathToFileURL(svg).href);
	// search (which also goes into the URL) and zoom on the hostile names
	await ask(page, '<script>', { click: '#search' });
	await page.click(frameRect(2));
	await settle(page);
	await page.reload({ waitUntil: 'load' });
	await settle(page);
	const got = await page.evaluate(() => {
		const fg = window.flamegraph, out = [];
		for (let i = 0; i < fg.frames(); i++)
			out.push(fg.frame(i).name);
		return { names: out, scripts: document.getElementsByTagName('script').length,
			imgs: document.getElementsByTagName('img').length + document.getElementsByTagName('image').length };
	});
	// (control characters become '?' when the folded text is read)
	for (const n of names.map((x) => x.replace(/[\x00-\x1f\x7f]/g, '?')))
		assert.ok(got.names.includes(n), `${n} is a frame name, as text`);
	assert.equal(got.scripts, 1, 'only the flamegraph script');
	assert.equal(got.imgs, 0);
	const i = got.names.indexOf('<script>alert(1)</script>');
	await page.click('#unzoom');
	await page.hover(frameRect(i));
	assert.match(await text(page, '#details'), /^<script>alert\(1\)<\/script> \(10 samples, /);
	const labels = await page.locator('#labels text').allTextContents();
	assert.ok(labels.some((l) => l.startsWith('<script>')), `a label shows the name: ${labels}`);
	await page.waitForTimeout(200);
	assert.deepEqual(page.events.dialogs.filter((d) => d.type !== 'prompt'), [], 'no alert ran');
	checkClean(page);
	await page.close();
});

// Issue 15, finding 8: a link carries a search, and RegExp backtracks
// exponentially on ^(A+)+$ against a name of 40 A's (minutes of a busy
// page; it cannot be interrupted). The page must answer: a hang fails this
// test by playwright's timeout on the load.
test('a crafted link ^(A+)+$ over a frame of 40 A\'s: the page answers, exactly', async () => {
	const a40 = 'A'.repeat(40);
	const folded = `main;${a40} 30\nmain;${a40};leaf 10\nmain;other;${a40}B 25\nmain;other 35\n`;
	const svg = join(dir, 'redos.svg');
	run(PROF, ['svg', '-i', '-', '-o', svg], folded);
	const hostile = parseFolded(folded), frames = modelFrames(hostile);
	const page = await open(pathToFileURL(svg).href + '#s=^(A%2B)%2B$');
	const s = await state(page);
	assert.equal(s.query, '^(A+)+$');
	// the share of the 40-A frame (its 40 samples of 100; not A..AB)
	assert.equal(await text(page, '#matched'), 'Matched: 40.00%');
	// (the model tests /^A+$/, the same language: node's RegExp would hang too)
	assert.equal(s.matched.percent, modelMatched(frames, /^A+$/).percent);
	assert.equal(await page.locator('#frames > g.m').count(), 1);
	// a click still zooms, and the share follows the zoom
	const other = frames.findIndex((f) => f.name === 'other');
	await page.click(frameRect(other));
	await settle(page);
	assert.equal((await state(page)).zoomed, other);
	assert.equal(await text(page, '#matched'), 'Matched: 0.00%');
	const aa = frames.findIndex((f) => f.name === a40);
	await page.click('#unzoom');
	await page.click(frameRect(aa));
	await settle(page);
	assert.equal(await text(page, '#matched'), 'Matched: 100.00%');
	assert.equal(new URL(page.url()).hash, `#x=${aa}&s=${encodeURIComponent('^(A+)+$')}`);
	checkClean(page);
	await page.close();
});

test('the search matcher matches what RegExp matches; it refuses what it cannot bound', async () => {
	const page = await open();
	const patterns = ['burn_', 'burn_(alpha|beta)$', '^alpha', 'alpha_(?:inner|outer)$',
		'^(?<t>alpha|beta)$', '[a-c]+_[^_]+', '[^a-z_]', '^[^_]*$', '\\d', '\\w+\\s\\w+', '\\.',
		'^.{4}$', 'a.p', '\\[k\\]$', '_\\[[kj]\\]', '\\(int', 'l{2}', 'e{1,2}t', 'a{,3}',
		'{lambda', '[\\d-z]+', '\\bbeta\\b', '\\Bet', 'x*y*z*', '(a|b)+$', '^$', 'a??b',
		'^A+$', '(\\w+\\s)+\\w', '\\x61lpha', '\\u0062eta', 'ÜBER', '[ü]', 'libc\\.so\\.\\d'];
	const extra = ['std::vector<int>::push_back', '{lambda()#1}', 'do_syscall_64_[k]',
		'Foo::bar(int, char const*)', '[libc.so.6+0x2a3f]', 'über', 'x y', 'A'.repeat(40),
		'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAB', 'a-b', 'ab', ''];
	// (no pattern here backtracks badly: RegExp runs them too, for the answer)
	const got = await page.evaluate(([patterns, extra]) => {
		const fg = window.flamegraph, names = [...extra], out = [];
		for (let i = 0; i < fg.frames(); i++)
			names.push(fg.frame(i).name);
		for (const p of patterns) {
			for (const ic of [false, true]) {
				const re = new RegExp(p, ic ? 'i' : '');
				out.push({ p, ic, want: names.map((s) => re.test(s)), got: fg.match(p, ic, names) });
			}
		}
		return out;
	}, [patterns, extra]);
	for (const { p, ic, want, got: g } of got)
		assert.deepEqual(g, want, `${p}${ic ? ' (ignore case)' : ''}`);
	// what a linear-time matcher cannot do is refused, visibly
	for (const p of ['(alpha)_\\1', 'alpha(?=_)', '(?<!x)beta', 'a{5000}']) {
		await page.evaluate((q) => window.flamegraph.search(q), p);
		assert.match(await text(page, '#details'), /^Unsupported regex: .* cannot be searched$/, p);
		assert.equal(await text(page, '#matched'), 'Unsupported regex', p);
		assert.equal(await page.locator('#frames > g.m').count(), 0, p);
	}
	// and the page goes on searching
	await page.evaluate(() => window.flamegraph.search('burn_'));
	assert.equal(await text(page, '#matched'), `Matched: ${pct(modelMatched(model, /burn_/).percent)}%`);
	assert.equal(await text(page, '#details'), '');
	checkClean(page);
	await page.close();
});

// ---- frames too narrow to draw, the <img> case, differential colors ----

const thousands = (v) => String(v).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

// The path of names from the root to frame I of the page (without "all").
const pagePath = (page, i) => page.evaluate((j) => {
	const fg = window.flamegraph, names = [];
	for (; j > 0; j = fg.frame(j).parent)
		names.unshift(fg.frame(j).name);
	return names;
}, i);

// A graph of 20,000 generated frames drawn at --minwidth 0.5% of the
// total, where most frames are too narrow to draw: {folded, svg, all (its
// stacks), drawn (the model of what is drawn)}.
function prunedGraph(name) {
	const folded = join(dir, `${name}.folded`), svg = join(dir, `${name}.svg`);
	writeFileSync(folded, syntheticFolded(20000, 7));
	const all = parseFolded(run(PROF, ['report', '-i', folded]).toString());
	run(PROF, ['svg', '-i', folded, '--minwidth', '0.5%', '-o', svg]);
	return { folded, svg, all, drawn: modelFrames(all, 0.005) };
}

test('heavy pruning: Matched is the share of all samples, top level and zoomed; the page says what is hidden', async () => {
	const { folded, svg, all, drawn } = prunedGraph('pruned');
	const hid = hiddenFrames(all, 0.005);
	assert.ok(hid.frames > 10 * drawn.length, `heavy pruning: ${hid.frames} hidden, ${drawn.length} drawn`);
	const page = await open(pathToFileURL(svg).href);
	assert.equal(await page.evaluate(() => window.flamegraph.frames()), drawn.length);
	assert.equal(await text(page, '#hidden'),
		`${thousands(hid.frames)} frames too narrow to draw (${pct(100 * hid.samples / hid.total)}% ` +
		'of the samples end in them); search counts them');
	for (const re of [/parse_1\d\d$/, /::step_/, /json/]) {
		const exact = foldedShare(all, re);
		// what counting the drawn frames only would say: far off
		const drawnOnly = modelMatched(drawn, re).percent;
		assert.ok(Math.abs(exact - drawnOnly) > 1, `${re}: drawn only ${drawnOnly} vs ${exact}`);
		await page.evaluate((q) => window.flamegraph.search(q), re.source);
		assert.equal(await text(page, '#matched'), `Matched: ${pct(exact)}%`, String(re));
		// zoomed into the root's heaviest child, and into a frame a few rows up
		let z = 1;
		for (let i = 1; i < drawn.length; i++)
			if (drawn[i].parent === 0 && drawn[i].count > drawn[z].count)
				z = i;
		let up = z;
		while (up + 1 < drawn.length && drawn[up + 1].parent === up && drawn[up].depth < 4)
			up++;
		for (const i of [z, up]) {
			await page.evaluate((j) => window.flamegraph.zoom(j), i);
			const want = foldedShareUnder(all, re, await pagePath(page, i));
			assert.equal(want.of, drawn[i].count);
			assert.equal(await text(page, '#matched'), `Matched: ${pct(want.percent)}%`,
				`${re} zoomed into ${drawn[i].name}`);
		}
		await page.evaluate(() => window.flamegraph.reset());
	}
	checkClean(page);
	await page.close();
	// nothing hidden, no note
	run(PROF, ['svg', '-i', folded, '--minwidth', '0', '-o', svg]);
	const page2 = await open(pathToFileURL(svg).href);
	assert.equal(await page2.locator('#hidden').count(), 0);
	await page2.evaluate(() => window.flamegraph.search('json'));
	assert.equal(await text(page2, '#matched'), `Matched: ${pct(foldedShare(all, /json/))}%`);
	await page2.close();
});

test('hidden frames named with XML specials and "]]>" (the table is CDATA): search counts them exactly', async () => {
	const folded = join(dir, 'cdata.folded'), svg = join(dir, 'cdata.svg');
	const odd = ['x]]>y', 'a<b>&amp;c', ']]]]>>', '<![CDATA[z]]>'];
	// each odd name only in frames of at most 4 samples in 10^6: too narrow to draw
	const lines = ['main;work 999000'];
	odd.forEach((name, i) => lines.push(`main;w${i};${name} ${i + 1}`, `main;${name};leaf 1`));
	writeFileSync(folded, lines.join('\n') + '\n');
	run(PROF, ['svg', '-i', folded, '-o', svg]);
	const xml = readFileSync(svg, 'utf8');
	assert.ok(xml.includes('<metadata id="hidden-names"><![CDATA['), 'names in CDATA');
	const all = parseFolded(run(PROF, ['report', '-i', folded]).toString());
	const page = await open(pathToFileURL(svg).href);
	assert.equal(await page.evaluate(() => window.flamegraph.frames()), 3, 'all, main, work drawn');
	for (const re of [/\]\]>/, /&amp;/, /<!\[CDATA/, /^\]\]\]\]>>$/, /<b>/]) {
		await page.evaluate((q) => window.flamegraph.search(q), re.source);
		assert.equal(await text(page, '#matched'), `Matched: ${pct(foldedShare(all, re))}%`, String(re));
	}
	checkClean(page);
	await page.close();
});

test('as an <img>, the fluid graph shows at its intrinsic size (1200 px), and scales; in a tab it is fluid', async () => {
	const head = /<svg [^>]*>/.exec(readFileSync(join(dir, 'threads.svg'), 'utf8'))[0];
	assert.match(head, / width="1200" .*viewBox="0 0 1200 \d+"/);
	const height = Number(/ height="(\d+)"/.exec(head)[1]);
	assert.ok(height > 100, `height ${height}`);
	writeFileSync(join(dir, 'img.html'), '<!DOCTYPE html><body style="margin:0">' +
		'<img id="a" src="threads.svg"><br><img id="b" src="threads.svg" style="width:600px"></body>');
	const page = await browser.newPage({ viewport: { width: 1600, height: 900 } });
	await page.goto(pathToFileURL(join(dir, 'img.html')).href, { waitUntil: 'load' });
	const got = await page.evaluate(() => ['a', 'b'].map((id) => {
		const img = document.getElementById(id), r = img.getBoundingClientRect();
		return { natural: [img.naturalWidth, img.naturalHeight], box: [r.width, r.height] };
	}));
	assert.deepEqual(got[0], { natural: [1200, height], box: [1200, height] });
	assert.equal(got[1].box[0], 600);
	assert.ok(Math.abs(got[1].box[1] - height / 2) <= 1, `scaled: ${got[1].box[1]} vs ${height / 2}`);
	await page.close();
	// opened in a tab (viewport 1280 px): the whole width, no viewBox
	const tab = await open();
	assert.deepEqual(await tab.evaluate(() => [document.documentElement.getBoundingClientRect().width,
		document.documentElement.getAttribute('viewBox')]), [1280, null]);
	checkClean(tab);
	await tab.close();
});

test('differential colors: by self change (the frame that changed), inclusive as an option; readable labels', async () => {
	const input = join(dir, 'diff.folded');
	// "stack OLD NEW": leaf grew, shrunk shrank, gone vanished, the rest is the same
	writeFileSync(input, 'main;a;leaf 100 300\nmain;a 50 50\nmain;b 200 200\n' +
		'main;shrunk 300 100\nmain;gone 100 0\n');
	const fills = async (args) => {
		const svg = join(dir, 'diff.svg');
		run(PROF, ['svg', '--diff', ...args, '-i', input, '-o', svg]);
		const page = await open(pathToFileURL(svg).href);
		const out = await page.evaluate(() => {
			const fg = window.flamegraph, res = {};
			for (let i = 0; i < fg.frames(); i++)
				res[fg.frame(i).name] = getComputedStyle(fg.frame(i).element.lastElementChild).fill;
			// a label's fill per frame name (the labels are text elements
			// in order; match them by their text)
			res.labels = {};
			for (const t of document.querySelectorAll('#labels text'))
				res.labels[t.textContent] = getComputedStyle(t).fill;
			return res;
		});
		checkClean(page);
		await page.close();
		return out;
	};
	const RED = 'rgb(255, 0, 0)', BLUE = 'rgb(0, 0, 255)', WHITE = 'rgb(255, 255, 255)';
	const BLACK = 'rgb(0, 0, 0)', HALF_BLUE = 'rgb(105, 105, 255)'; // 210 * (1 - 100 / 200)
	const self = await fills([]);
	assert.equal(self.leaf, RED, 'the frame that grew is the deepest red');
	assert.equal(self.shrunk, BLUE, 'the frame that shrank is the deepest blue');
	assert.equal(self.gone, HALF_BLUE, 'the frame that vanished: -100 of the largest 200');
	for (const f of ['main', 'a', 'b'])
		assert.equal(self[f], WHITE, `${f}: no self change`);
	// labels: white on the pure blue, black on red and white, and on the
	// vanished frame (drawn see-through, so its blue shows pale)
	assert.equal(self.labels.shrunk, WHITE);
	assert.equal(self.labels.leaf, BLACK);
	assert.equal(self.labels.main, BLACK);
	assert.equal(self.labels.gone, BLACK);
	const incl = await fills(['--diff-colors', 'inclusive']);
	// inclusive: a +200 like leaf, main -100 (+200 - 200 - 100)
	assert.equal(incl.a, RED);
	assert.equal(incl.leaf, RED);
	assert.equal(incl.shrunk, BLUE);
	assert.equal(incl.main, HALF_BLUE);
	assert.equal(incl.b, WHITE);
});

// ---- the match list, next/previous, greyed callers ----

// The page's match list against the folded text: the names are the
// distinct names matching RE among all stacks' frames (hidden ones too),
// each share the samples under the frame at PREFIX whose stack holds that
// name (foldedShareUnder with an exact name).
function checkList(list, all, re, prefix, what) {
	const want = new Set();
	for (const { frames } of all)
		if (prefix.every((n, k) => frames[k] === n))
			for (const f of frames)
				if (re.test(f))
					want.add(f);
	assert.deepEqual(list.map((m) => m.name).sort(), [...want].sort(), `${what}: names`);
	for (const m of list) {
		const exact = foldedShareUnder(all, { test: (f) => f === m.name }, prefix);
		assert.equal(m.count, exact.count, `${what}: ${m.name}`);
		assert.equal(pct(m.percent), pct(exact.percent), `${what}: ${m.name} %`);
	}
	for (let k = 1; k < list.length; k++)
		assert.ok(list[k - 1].count >= list[k].count, `${what}: most first`);
}

test('match list: each matching function with its share, hidden frames too, top level and zoomed', async () => {
	const { svg, all, drawn } = prunedGraph('list');
	const page = await open(pathToFileURL(svg).href);
	const drawnNames = new Set(drawn.map((f) => f.name));
	for (const r of [/json::/, /_2\d\d$/]) {
		await page.evaluate((q) => window.flamegraph.search(q), r.source);
		const got = await page.evaluate(() => window.flamegraph.matches());
		assert.ok(got.length >= 20, `${r}: ${got.length} names`);
		// some of them only in hidden frames
		assert.ok(got.some((m) => !drawnNames.has(m.name)), `${r}: a name drawn nowhere is listed`);
		checkList(got, all, r, [], `${r} top level`);
		assert.equal(await text(page, '#matchlist text:last-child'), `(${got.length - 12} more)`);
	}
	const re = /_2\d\d$/;
	let list = await page.evaluate(() => window.flamegraph.matches());
	// what the page shows: a header, the buttons, then "P% NAME" lines
	const lines = await page.locator('#matchlist text[data-name]').allTextContents();
	assert.deepEqual(lines, list.slice(0, 12).map((m) => `${pct(m.percent)}% ${m.name}`));
	assert.match(await text(page, '#matchcount'), new RegExp(`^${list.length} functions matched, \\d+ drawn in view:$`));
	assert.equal(await page.locator('#matchlist').isVisible(), true);
	// under the status line, the page made taller for it: it hides no frame
	const ys = await page.evaluate(() => ({
		list: document.getElementById('matchlist').getBoundingClientRect().top,
		status: document.getElementById('details').getBoundingClientRect().bottom,
		height: document.documentElement.getBoundingClientRect().height,
		bottom: document.getElementById('matchlist').getBoundingClientRect().bottom,
	}));
	assert.ok(ys.list >= ys.status && ys.bottom <= ys.height, JSON.stringify(ys));
	// a click on "Matched" hides the list and shows it again
	await page.click('#matched');
	assert.equal(await page.locator('#matchlist').isVisible(), false);
	await page.click('#matched');
	assert.equal(await page.locator('#matchlist').isVisible(), true);
	// zoomed into the root's heaviest child
	let z = 1;
	for (let i = 1; i < drawn.length; i++)
		if (drawn[i].parent === 0 && drawn[i].count > drawn[z].count)
			z = i;
	await page.evaluate((j) => window.flamegraph.zoom(j), z);
	list = await page.evaluate(() => window.flamegraph.matches());
	checkList(list, all, re, await pagePath(page, z), 'zoomed');
	// no search, no list
	await page.evaluate(() => window.flamegraph.search(''));
	assert.equal(await page.locator('#matchlist').isVisible(), false);
	checkClean(page);
	await page.close();
});

test('n / N and the buttons step through the drawn matches in view; the current one is outlined and scrolled to', async () => {
	const page = await open();
	await page.setViewportSize({ width: 1280, height: 120 });
	const re = /burn_|alpha_/;
	const hits = model.map((f, i) => i).filter((i) => i > 0 && re.test(model[i].name));
	assert.ok(hits.length >= 4, `${hits.length} drawn matches`);
	await page.evaluate((q) => window.flamegraph.search(q), re.source);
	const cur = async () => (await state(page)).current;
	const inViewport = async (i) => {
		const b = await box(page, i);
		return b.y >= 0 && b.y + b.height <= 120;
	};
	// frames high in the graph are off screen at this height: stepping
	// scrolls them in
	for (const i of hits) {
		await page.keyboard.press('n');
		assert.equal(await cur(), i);
		assert.equal(await page.locator('#frames > g.cur').count(), 1);
		assert.equal(await page.evaluate((j) => window.flamegraph.frame(j).element.classList.contains('cur'), i), true);
		assert.ok(await inViewport(i), `frame ${i} scrolled into view`);
	}
	await page.keyboard.press('n'); // wraps around
	assert.equal(await cur(), hits[0]);
	await page.keyboard.press('Shift+N');
	assert.equal(await cur(), hits[hits.length - 1]);
	await page.keyboard.press('Shift+N');
	assert.equal(await cur(), hits[hits.length - 2]);
	// the buttons in the list
	await page.setViewportSize({ width: 1280, height: 800 });
	await page.click('#nextmatch');
	assert.equal(await cur(), hits[hits.length - 1]);
	await page.click('#prevmatch');
	assert.equal(await cur(), hits[hits.length - 2]);
	// zoomed into beta: only beta's matches (none of alpha_, all burn_beta)
	const beta = pathIndex(['beta']);
	await page.evaluate((j) => window.flamegraph.zoom(j), beta);
	assert.equal(await cur(), -1, 'a zoom forgets the current match');
	const inBeta = hits.filter((i) => i > beta && i < model[beta].end);
	assert.ok(inBeta.length >= 1);
	for (const i of inBeta) {
		await page.keyboard.press('n');
		assert.equal(await cur(), i);
	}
	await page.keyboard.press('n');
	assert.equal(await cur(), inBeta[0]);
	checkClean(page);
	await page.close();
});

test('while zoomed, the callers of the zoomed frame are greyed (flamegraph.pl)', async () => {
	const page = await open();
	const b = pathIndex([...ALPHA, 'alpha_inner']);
	const opacity = (i) => page.evaluate((j) =>
		getComputedStyle(window.flamegraph.frame(j).element).opacity, i);
	await page.click(frameRect(b));
	await settle(page);
	const callers = [];
	for (let j = model[b].parent; j >= 0; j = model[j].parent)
		callers.push(j);
	assert.ok(callers.length >= 3);
	for (const j of callers)
		assert.equal(await opacity(j), '0.5', `caller ${model[j].name}`);
	for (let j = b; j < model[b].end; j++)
		assert.equal(await opacity(j), '1', `${model[j].name} is not greyed`);
	// a greyed caller stays clickable: zoom out to it
	await page.click(frameRect(callers[0]));
	await settle(page);
	assert.equal((await state(page)).zoomed, callers[0]);
	assert.equal(await opacity(callers[0]), '1');
	assert.equal(await opacity(callers[1]), '0.5');
	await page.click('#unzoom');
	for (const j of callers)
		assert.equal(await opacity(j), '1');
	checkClean(page);
	await page.close();
});

// ---- copy ----

// The folded stack of model frame I: its names from the root's child up.
function modelStack(i) {
	const list = [];
	for (; i > 0; i = model[i].parent)
		list.unshift(model[i].name);
	return list.join(';');
}

test('copy a frame\'s name or stack: from its right-click menu, or c / C on the hovered frame', async () => {
	const page = await open(svgUrl, { permissions: ['clipboard-read', 'clipboard-write'] });
	const i = pathIndex([...ALPHA, 'alpha_inner', 'burn_alpha']);
	const stack = modelStack(i);
	// the folded text has this stack (its deepest frames: burn_alpha's self time)
	assert.ok(stacks.some((s) => s.frames.join(';').startsWith(stack)), stack);
	const clip = () => page.evaluate(() => navigator.clipboard.readText());
	await page.click(frameRect(i), { button: 'right' });
	assert.equal(await page.locator('#menu').isVisible(), true);
	assert.equal((await state(page)).zoomed, 0, 'a right-click does not zoom');
	await page.click('#copystack');
	assert.equal(await page.locator('#menu').isVisible(), false);
	await page.waitForFunction(() => /^Copied/.test(document.getElementById('details').textContent));
	assert.equal(await clip(), stack);
	await page.click(frameRect(pathIndex(['beta'])), { button: 'right' });
	await page.click('#copyname');
	await page.waitForFunction(() => /^Copied the name/.test(document.getElementById('details').textContent));
	assert.equal(await clip(), 'beta');
	// keys on the hovered frame
	const o = pathIndex(ALPHA);
	await page.hover(frameRect(o));
	await page.keyboard.press('c');
	await page.waitForFunction(() => /^Copied the name/.test(document.getElementById('details').textContent));
	assert.equal(await clip(), 'alpha_outer');
	await page.hover(frameRect(o));
	await page.keyboard.press('Shift+C');
	await page.waitForFunction(() => /^Copied the stack/.test(document.getElementById('details').textContent));
	assert.equal(await clip(), modelStack(o));
	// Escape closes the menu
	await page.click(frameRect(o), { button: 'right' });
	await page.keyboard.press('Escape');
	assert.equal(await page.locator('#menu').isVisible(), false);
	checkClean(page);
	await page.close();
});

test('copy without a clipboard: a prompt holds the text to copy by hand', async () => {
	const page = await open();
	await page.evaluate(() => Object.defineProperty(navigator, 'clipboard', { value: undefined }));
	const i = pathIndex([...ALPHA, 'alpha_inner']);
	let offered;
	page.on('dialog', (d) => { offered = d.defaultValue(); });
	await page.hover(frameRect(i));
	await page.keyboard.press('Shift+C');
	await settle(page);
	assert.deepEqual(page.events.dialogs, [{ type: 'prompt', message: 'Copy the stack (Ctrl-C):' }]);
	assert.equal(offered, modelStack(i));
	checkClean(page);
	await page.close();
});

// ---- the sandwich view ----

// Function F's callers and callees from folded stacks: per path from F
// (F;caller;caller's caller... and F;callee;callee's callee...), the
// samples of the stacks holding it, F's outermost frame in each stack.
function foldedSandwich(all, f) {
	const callers = new Map(), callees = new Map();
	const add = (m, k, c) => m.set(k, (m.get(k) || 0) + c);
	for (const { frames, count } of all) {
		const p = frames.indexOf(f);
		if (p < 0)
			continue;
		for (let k = p; k < frames.length; k++)
			add(callees, frames.slice(p, k + 1).join(';'), count);
		for (let k = p; k >= 0; k--)
			add(callers, frames.slice(k, p + 1).reverse().join(';'), count);
	}
	return { callers, callees };
}

const asMap = (list) => new Map(list.map(({ path, count }) => [path, count]));
const sorted = (m) => [...m.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));

test('sandwich view: callers and callees of a function, merged over all its frames, equal the folded data', async () => {
	const page = await open();
	const i = pathIndex([...ALPHA, 'alpha_inner']);
	await page.click(frameRect(i), { button: 'right' });
	await page.click('#sandwichopen');
	assert.equal(await page.locator('#sandwich').isVisible(), true);
	const want = foldedSandwich(stacks, 'alpha_inner');
	const n = want.callees.get('alpha_inner');
	assert.equal(await text(page, '#sandwichtitle'),
		`Callers and callees of alpha_inner (${thousands(n)} samples, ${pct((100 * n) / total)}%)`);
	// the drawn frames: F twice (the seam), each caller and callee wide enough
	const drawnNames = await page.locator('#sandwich g.callee > title').allTextContents();
	assert.ok(drawnNames.includes(`burn_alpha (${thousands(want.callees.get('alpha_inner;burn_alpha'))} samples, ` +
		`${pct((100 * want.callees.get('alpha_inner;burn_alpha')) / n)}%)`), drawnNames.join('\n'));
	const callerNames = await page.locator('#sandwich g.caller > title').allTextContents();
	assert.ok(callerNames.some((t) => t.startsWith('alpha_outer (')), callerNames.join('\n'));
	// a callee's own sandwich, by clicking it; Escape closes
	await page.locator('#sandwich g.callee', { hasText: 'burn_alpha' }).first().click();
	assert.match(await text(page, '#sandwichtitle'), /^Callers and callees of burn_alpha /);
	await page.keyboard.press('Escape');
	assert.equal(await page.locator('#sandwich').count(), 0);
	// the trees, every path and count, against the folded text
	for (const f of ['alpha_inner', 'burn_beta', 'alpha', 'pool_work']) {
		const w = foldedSandwich(stacks, f);
		if (!w.callees.size)
			continue;
		const got = await page.evaluate((name) => window.flamegraph.sandwich(name), f);
		assert.deepEqual(sorted(asMap(got.callees)), sorted(w.callees), `${f}: callees`);
		assert.deepEqual(sorted(asMap(got.callers)), sorted(w.callers), `${f}: callers`);
	}
	await page.click('#sandwichclose');
	assert.equal(await page.locator('#sandwich').count(), 0);
	checkClean(page);
	await page.close();
});

test('sandwich view over heavy pruning: hidden frames count, recursion counts once', async () => {
	const { svg, all, drawn } = prunedGraph('sandwich');
	// the names in the most stacks, one of them with a frame inside another
	const seen = new Map(), nested = new Set();
	for (const { frames } of all)
		for (const f of new Set(frames)) {
			seen.set(f, (seen.get(f) || 0) + 1);
			if (frames.indexOf(f) !== frames.lastIndexOf(f))
				nested.add(f);
		}
	const names = [...seen.entries()].sort((a, b) => b[1] - a[1]).slice(0, 3).map((e) => e[0]);
	if (nested.size)
		names.push([...nested][0]);
	const page = await open(pathToFileURL(svg).href);
	for (const f of names) {
		const w = foldedSandwich(all, f);
		const got = await page.evaluate((name) => window.flamegraph.sandwich(name), f);
		assert.ok(w.callees.size > drawn.filter((d) => d.name === f).length, `${f}: more than what is drawn`);
		assert.deepEqual(sorted(asMap(got.callees)), sorted(w.callees), `${f}: callees`);
		assert.deepEqual(sorted(asMap(got.callers)), sorted(w.callers), `${f}: callers`);
	}
	checkClean(page);
	await page.close();
});

// ---- the flame chart ----

test('--flamechart: folded lines in time order drawn left to right, merged only with the line before', async () => {
	// phases in sequence, as a tracer writes them: parse, then compute (a
	// run of identical stacks), then parse again, then write
	const lines = [];
	const phases = [['parse', 'lex', 3], ['parse', 'lex', 2], ['compute', 'mul', 5], ['compute', 'add', 1],
		['compute', 'mul', 4], ['compute', 'mul', 4], ['parse', 'lex', 1], ['write', 'flush', 2]];
	for (const [a, b, c] of phases)
		lines.push(`main;${a};${b} ${c}`);
	const folded = join(dir, 'chart.folded'), svg = join(dir, 'chart.svg');
	writeFileSync(folded, lines.join('\n') + '\n');
	run(PROF, ['svg', '--flamechart', '-i', folded, '-o', svg]);
	// the expected frames: runs of equal prefixes, in order
	const want = [];
	let prev = [];
	for (const [a, b, c] of phases) {
		const path = ['main', a, b];
		let same = 0;
		while (same < 3 && prev[same] && prev[same].name === path[same])
			same++;
		const cur = [];
		for (let k = 0; k < 3; k++) {
			if (k < same) {
				cur.push(prev[k]);
			} else {
				const f = { name: path[k], count: 0, depth: k + 1 };
				want.push(f);
				cur.push(f);
			}
			cur[k].count += c;
		}
		prev = cur;
	}
	const page = await open(pathToFileURL(svg).href);
	const got = await page.evaluate(() => {
		const fg = window.flamegraph, out = [];
		for (let i = 1; i < fg.frames(); i++) {
			const f = fg.frame(i);
			const r = f.element.lastElementChild;
			out.push({ name: f.name, count: f.count, depth: f.depth, x: Number(r.getAttribute('x')) });
		}
		return out;
	});
	assert.deepEqual(got.map(({ name, count, depth }) => ({ name, count, depth })), want);
	// time order: every row's frames left to right in the lines' order
	// (the second parse starts after compute ends)
	const at = (name, k) => got.filter((f) => f.name === name)[k].x;
	assert.equal(at('parse', 0), 0);
	assert.equal(at('compute', 0), 5);
	assert.equal(at('parse', 1), 19);
	assert.equal(at('write', 0), 20);
	assert.equal(await page.locator('#title').textContent(), 'Flame Chart');
	// the search counts both parse runs
	await page.evaluate(() => window.flamegraph.search('^parse$'));
	assert.equal(await text(page, '#matched'), `Matched: ${pct(100 * 6 / 22)}%`);
	checkClean(page);
	await page.close();
	// --diff is refused, with the reason
	assert.throws(() => run(PROF, ['svg', '--flamechart', '--diff', folded, folded, '-o', svg]),
		(e) => /--flamechart keeps the lines' order: not with --diff/.test(String(e.stderr)));
});

test('--flamechart of a recording: phase_a, phase_b, phase_a left to right, a lane per thread, widths the runs\'', async () => {
	// examples/phases: phase_a, phase_b, phase_a on its main thread, phase_c
	// on a worker started with phase_b; it prints each phase's own clock
	const rec = join(dir, 'phases.data'), svg = join(dir, 'phases.svg');
	const clock = run(PROF, ['record', '-q', '-F', '999', '-o', rec, '--', join(EXAMPLES, 'phases'), '200', '400'])
		.toString().split('\n').filter((l) => l.startsWith('phase ')).map((l) => l.split(' '));
	run(PROF, ['svg', '--flamechart', '-i', rec, '-o', svg]);
	// the runs prof report --flamechart prints, by phase (the first phase_*
	// frame of each stack), merged while the thread and phase stay the same
	const runs = [];
	for (const { frames, count } of parseFolded(run(PROF, ['report', '--flamechart', '-i', rec]).toString())) {
		const ph = frames.find((f) => f.startsWith('phase_'));
		if (!ph)
			continue;
		const last = runs[runs.length - 1];
		if (last && last.thread === frames[0] && last.name === ph)
			last.count += count;
		else
			runs.push({ thread: frames[0], name: ph, count });
	}
	assert.deepEqual(runs.map((r) => `${r.thread} ${r.name}`),
		['phases phase_a', 'phases phase_b', 'phases phase_a', 'worker phase_c']);
	const page = await open(pathToFileURL(svg).href);
	// the frames as the page drew them: name, count, x and width from the DOM
	const got = await page.evaluate(() => {
		const fg = window.flamegraph, out = [];
		for (let i = 1; i < fg.frames(); i++) {
			const f = fg.frame(i), r = f.element.lastElementChild;
			out.push({ name: f.name, count: f.count, depth: f.depth,
				x: Number(r.getAttribute('x')), width: Number(r.getAttribute('width')) });
		}
		return out;
	});
	const lanes = got.filter((f) => f.depth === 1);
	assert.deepEqual(lanes.map((f) => f.name), ['phases', 'worker'], 'a lane per thread, by first sample');
	assert.ok(lanes[1].x >= lanes[0].x + lanes[0].width);
	const drawn = got.filter((f) => /^phase_/.test(f.name)).sort((a, b) => a.x - b.x);
	assert.deepEqual(drawn.map((f) => f.name), ['phase_a', 'phase_b', 'phase_a', 'phase_c'], 'left to right');
	assert.deepEqual(drawn.map((f) => f.count), runs.map((r) => r.count), 'widths are the runs');
	for (let k = 1; k < drawn.length; k++)
		assert.ok(drawn[k].x >= drawn[k - 1].x + drawn[k - 1].width, `${k}: after the one before`);
	// the program's own clock: it ran them in that order
	// ("phase NAME TID START_NS END_NS CPU_NS")
	const main = clock.filter((c) => c[2] === clock.find((d) => d[1] === 'phase_b')[2]);
	assert.deepEqual(main.map((c) => c[1]), ['phase_a', 'phase_b', 'phase_a']);
	assert.ok(BigInt(main[0][4]) <= BigInt(main[1][3]) && BigInt(main[1][4]) <= BigInt(main[2][3]));
	assert.equal(await page.locator('#title').textContent(), 'Flame Chart');
	assert.match(await page.locator('#subtitle').textContent(), /^Time-ordered: a lane per thread/);
	checkClean(page);
	await page.close();
});

// ---- the views over the graph in the URL ----

test('the URL carries the sandwich view, the hidden match list and the current match; reloading or a link restores them', async () => {
	const page = await open();
	await page.evaluate(() => window.flamegraph.search('burn_'));
	await page.keyboard.press('n');
	await page.keyboard.press('n');
	const cur = (await state(page)).current;
	assert.ok(cur > 0);
	await page.click('#matched'); // hides the list
	const i = pathIndex([...ALPHA, 'alpha_inner']);
	await page.click(frameRect(i), { button: 'right' });
	await page.click('#sandwichopen');
	const url = page.url();
	assert.equal(new URL(url).hash, `#s=burn_&w=alpha_inner&l=0&c=${cur}`);
	const want = await state(page);
	assert.equal(want.sandwich, 'alpha_inner');
	assert.equal(want.listShown, false);
	const wantTitle = await text(page, '#sandwichtitle');
	const check = async (p, how) => {
		assert.deepEqual(await state(p), want, `${how}: the state`);
		assert.equal(await text(p, '#sandwichtitle'), wantTitle, `${how}: the sandwich view`);
		assert.equal(await p.locator('#matchlist').getAttribute('class'), 'hide', `${how}: the list hidden`);
		assert.equal(await p.locator('#frames > g.cur').count(), 1, `${how}: the current match outlined`);
		assert.equal(await p.evaluate((j) => window.flamegraph.frame(j).element.classList.contains('cur'), cur), true);
	};
	await page.reload({ waitUntil: 'load' });
	await page.waitForFunction(() => document.documentElement.getAttribute('data-ready') === '1');
	await settle(page);
	await check(page, 'reload');
	const other = await open(url);
	await settle(other);
	await check(other, 'a link');
	// closing the sandwich and showing the list again leave the fragment
	await other.keyboard.press('Escape');
	assert.equal(new URL(other.url()).hash, `#s=burn_&l=0&c=${cur}`);
	await other.click('#matched');
	assert.equal(new URL(other.url()).hash, `#s=burn_&c=${cur}`);
	assert.notEqual(await other.locator('#matchlist').getAttribute('class'), 'hide');
	// an edited fragment: a sandwich of another function, a bad current
	// match (not a match) left out
	await other.evaluate(() => { location.hash = '#s=burn_&w=burn_beta&c=0'; });
	await other.waitForFunction(() => window.flamegraph.state().sandwich === 'burn_beta');
	assert.equal((await state(other)).current, -1);
	assert.match(await text(other, '#sandwichtitle'), /^Callers and callees of burn_beta /);
	checkClean(page);
	checkClean(other);
	await page.close();
	await other.close();
});

test(`load and zoom times of a ${MEASURE_FRAMES}-frame graph (reported, not asserted)`,
	{ skip: MEASURE_FRAMES <= 0 }, async (t) => {
		const res = await measure({ prof: PROF, frames: MEASURE_FRAMES, runs: MEASURE_RUNS, browser });
		const m = res.median, f = (v) => v.toFixed(0);
		t.diagnostic(`${res.info.frames} frames, ${res.info.bytes} bytes ` +
			`(${(res.info.bytes / res.info.frames).toFixed(1)} B/frame); medians of ${res.runs} runs`);
		t.diagnostic(`load: DOMContentLoaded ${f(m.dcl)} ms, load ${f(m.load)} ms, ` +
			`first frame after load ${f(m.rendered)} ms (target < 2000)`);
		t.diagnostic(`zoom to the root's heaviest child (${res.info.bigSubtree} frames): ` +
			`${f(m.zoomBig)} ms (handler ${f(m.handlerBig)} ms); a mid-tree frame: ` +
			`${f(m.zoomMid)} ms; reset: ${f(m.reset)} ms (target < 300)`);
	});
