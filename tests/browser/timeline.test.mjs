// timeline.test.mjs: the page `prof svg --timeline` writes, in a real
// browser (Debian's chromium, headless, playwright-core; file:// URLs, no
// network). Run by tests/browser/run.sh. The page is made from a real
// recording of examples/phases (phase_a, phase_b, phase_a on its main
// thread, phase_c on a worker during phase_b), whose own clock
// (CLOCK_MONOTONIC, the recording's) says when each phase ran: a range
// dragged across phase_b's cells draws a flamegraph where burn_b leads and
// burn_a is absent, the URL keeps the range and a reload shows it again,
// click then shift-click selects the same, and a hostile thread name stays
// text.
//
// Env: PROF (build/prof), EXAMPLES (build/examples), CHROMIUM.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { launchBrowser } from './lib.mjs';

const ROOT = resolve(new URL('../..', import.meta.url).pathname);
const PROF = process.env.PROF || join(ROOT, 'build/prof');
const EXAMPLES = process.env.EXAMPLES || join(ROOT, 'build/examples');

let dir, browser, url, phases, origin, cellMs, rows, total;

function run(cmd, args) {
	return execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 28 });
}

async function open(u = url) {
	const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
	const problems = [];
	page.on('pageerror', (e) => problems.push('page error: ' + e.message));
	page.on('dialog', (d) => { problems.push('dialog: ' + d.message()); d.dismiss(); });
	page.on('console', (m) => { if (m.type() === 'error') problems.push('console: ' + m.text()); });
	await page.goto(u);
	await page.waitForSelector('svg[data-ready="1"]', { state: 'attached' });
	page.problems = problems;
	return page;
}

// The cells (from the page's origin) of a phase's span on the program's
// clock, narrowed by `pad` cells each side.
function phaseCells(name, pad) {
	const p = phases.find((x) => x.name === name);
	return [Math.floor((p.start - origin) / 1e6 / cellMs) + pad,
		Math.floor((p.end - origin) / 1e6 / cellMs) - pad];
}

function burns(frames) {
	const s = {};
	for (const f of frames)
		if (/^burn_[abc]$/.test(f.name))
			s[f.name] = (s[f.name] || 0) + f.count;
	return s;
}

before(async () => {
	dir = mkdtempSync(join(tmpdir(), 'prof-timeline-'));
	const rec = join(dir, 'phases.data');
	const clock = execFileSync(PROF, ['record', '-F', '999', '-o', rec, '--',
		join(EXAMPLES, 'phases'), '700', '1400'], { stdio: ['ignore', 'pipe', 'ignore'] });
	phases = clock.toString().trim().split('\n').map((l) => {
		const f = l.split(' ');
		return { name: f[1], tid: Number(f[2]), start: Number(f[3]), end: Number(f[4]) };
	});
	const svg = join(dir, 'phases.svg');
	run(PROF, ['svg', '--timeline', '-i', rec, '-o', svg]);
	const head = readFileSync(svg, 'utf8').slice(0, 4096);
	origin = Number(/data-origin-ns="(\d+)"/.exec(head)[1]);
	cellMs = Number(/data-cell-ms="(\d+)"/.exec(head)[1]);
	rows = Number(/data-rows="(\d+)"/.exec(head)[1]);
	total = run(PROF, ['report', '-i', rec]).toString().trim().split('\n')
		.reduce((s, l) => s + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
	url = pathToFileURL(svg).href;
	browser = await launchBrowser();
});

after(async () => {
	await browser?.close();
	if (dir)
		rmSync(dir, { recursive: true, force: true });
});

test('the heatmap holds every sample once, a column per second', async () => {
	const page = await open();
	const t = await page.evaluate(() => ({ columns: timeline.columns, rows: timeline.rows,
		sum: timeline.counts().reduce((a, b) => a + b, 0), n: timeline.counts().length }));
	assert.equal(t.rows, rows);
	assert.equal(t.n, t.columns * t.rows);
	assert.equal(t.sum, total);
	const span = (Math.max(...phases.map((p) => p.end)) - Math.min(...phases.map((p) => p.start))) / 1e9;
	assert.ok(Math.abs(t.columns - span) <= 1.5, `${t.columns} columns for ${span} s`);
	assert.deepEqual(page.problems, []);
	await page.close();
});

test('dragging across phase_b draws its flamegraph: burn_b leads, burn_a absent', async () => {
	const page = await open();
	const [c0, c1] = phaseCells('phase_b', 5);
	const a = await page.evaluate((c) => timeline.cellBox(c), c0);
	const b = await page.evaluate((c) => timeline.cellBox(c), c1);
	await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
	await page.mouse.down();
	await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 4 });
	await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 4 });
	await page.mouse.up();
	const s = await page.evaluate(() => ({ sel: timeline.selection(), flame: timeline.flame(),
		drawn: timeline.drawn().map((f) => f.name), hash: location.hash,
		counts: timeline.counts() }));
	assert.equal(s.sel.c0, c0);
	assert.equal(s.sel.c1, c1);
	// the flamegraph's samples are the selected cells' samples
	const inCells = s.counts.slice(c0, c1 + 1).reduce((x, y) => x + y, 0);
	assert.equal(s.sel.total, inCells);
	const by = burns(s.flame);
	console.log(`# phase_b cells ${c0}..${c1}: ${inCells} samples, burns ${JSON.stringify(by)}`);
	assert.equal(by.burn_a || 0, 0);
	assert.ok(by.burn_b > 0.4 * inCells, 'burn_b leads');
	assert.ok(by.burn_b > (by.burn_c || 0) * 0.8);
	assert.ok(s.drawn.includes('burn_b') && !s.drawn.includes('burn_a'));
	assert.equal(s.hash, `#range=${c0 * cellMs}-${(c1 + 1) * cellMs}`);
	assert.deepEqual(page.problems, []);
	await page.close();
});

test('the URL keeps the range: a reload with #range= draws the first phase_a', async () => {
	const [c0, c1] = phaseCells('phase_a', 5);
	const page = await open(`${url}#range=${c0 * cellMs}-${(c1 + 1) * cellMs}`);
	const s = await page.evaluate(() => ({ sel: timeline.selection(), flame: timeline.flame() }));
	assert.equal(s.sel.c0, c0);
	assert.equal(s.sel.c1, c1);
	const by = burns(s.flame);
	assert.ok(by.burn_a > 0.9 * s.sel.total, JSON.stringify(by));
	assert.equal(by.burn_b || 0, 0);
	// editing the fragment applies it
	const [b0, b1] = phaseCells('phase_b', 5);
	await page.evaluate((h) => { location.hash = h; }, `range=${b0 * cellMs}-${(b1 + 1) * cellMs}`);
	await page.waitForFunction((c) => timeline.selection().c0 === c, b0);
	assert.equal(burns(await page.evaluate(() => timeline.flame())).burn_a || 0, 0);
	await page.reload();
	await page.waitForSelector('svg[data-ready="1"]', { state: 'attached' });
	assert.equal(await page.evaluate(() => timeline.selection().c0), b0);
	assert.deepEqual(page.problems, []);
	await page.close();
});

test('a click on a frame zooms into it, a click on a caller zooms back out', async () => {
	const [c0, c1] = phaseCells('phase_b', 5);
	const page = await open(`${url}#range=${c0 * cellMs}-${(c1 + 1) * cellMs}`);
	const i = await page.evaluate(() => timeline.flame().find((f) => f.name === 'phase_b').i);
	await page.click(`#flame g[data-i="${i}"] rect`);
	const z = await page.evaluate(() => ({ zoom: timeline.zoom(), drawn: timeline.drawn().map((f) => f.name),
		w: document.querySelector('#flame').getBoundingClientRect().width }));
	assert.equal(z.zoom, i);
	assert.ok(z.drawn.includes('burn_b') && !z.drawn.includes('burn_c') && !z.drawn.includes('phase_c'),
		JSON.stringify(z.drawn));
	const rw = await page.evaluate((k) => Number(document.querySelector(`#flame g[data-i="${k}"] rect`).getAttribute('width')), i);
	assert.ok(Math.abs(rw - z.w) < 2, `${rw} vs ${z.w}`);
	await page.click('#flame g[data-i="0"] rect');
	assert.equal(await page.evaluate(() => timeline.zoom()), 0);
	assert.ok((await page.evaluate(() => timeline.drawn().map((f) => f.name))).includes('burn_c'));
	assert.deepEqual(page.problems, []);
	await page.close();
});

test('click, then shift-click selects the range between', async () => {
	const page = await open();
	const [c0, c1] = phaseCells('phase_b', 8);
	const a = await page.evaluate((c) => timeline.cellBox(c), c0);
	const b = await page.evaluate((c) => timeline.cellBox(c), c1);
	await page.mouse.click(a.x + 1, a.y + 1);
	await page.keyboard.down('Shift');
	await page.mouse.click(b.x + 1, b.y + 1);
	await page.keyboard.up('Shift');
	const s = await page.evaluate(() => timeline.selection());
	assert.equal(s.c0, c0);
	assert.equal(s.c1, c1);
	await page.close();
});

test('a hostile thread name is text in the flamegraph, no script runs', async () => {
	const rec = join(dir, 'h.data'), svg = join(dir, 'h.svg');
	execFileSync(PROF, ['record', '-F', '999', '-o', rec, '--', 'sh', '-c',
		'printf "<script>]]>x" >/proc/self/comm; i=0; while [ $i -lt 300000 ]; do i=$((i + 1)); done'],
	{ stdio: 'ignore' });
	run(PROF, ['svg', '--timeline', '--threads', '-i', rec, '-o', svg]);
	const page = await open(pathToFileURL(svg).href + '#range=0-100000');
	const s = await page.evaluate(() => ({ names: timeline.flame().map((f) => f.name),
		scripts: document.getElementsByTagName('script').length }));
	assert.ok(s.names.includes('<script>]]>x'), JSON.stringify(s.names.slice(0, 5)));
	assert.equal(s.scripts, 1);
	assert.deepEqual(page.problems, []);
	await page.close();
});
