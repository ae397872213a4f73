// speedscope.test.mjs: `prof report --format speedscope` loaded by speedscope
// itself (the npm package's dist/release, served from 127.0.0.1 by a small
// node:http server; no network) in Debian's chromium, headless, driven by
// playwright-core (launched as tests/browser/lib.mjs does). Run by
// tests/speedscope/run.sh (TAP, for prove). The profile is a real recording
// of examples/threads; what speedscope shows is checked against `prof
// report`: the title, one profile per thread with its samples in the
// profile selector, and the hottest function of `prof report --top` at the
// top of the Sandwich view with the same samples and share.
//
// speedscope draws with WebGL: headless chromium has no GPU, so WebGL runs
// on SwiftShader (ANGLE's CPU Vulkan); the flags pin that, and without it
// speedscope loads nothing and shows "Something went wrong" (the last test
// checks that this test sees such failures).
//
// Env: PROF (build/prof), EXAMPLES (build/examples), CHROMIUM.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize, resolve } from 'node:path';
import { launchBrowser } from '../browser/lib.mjs';

const ROOT = resolve(new URL('../..', import.meta.url).pathname);
const PROF = process.env.PROF || join(ROOT, 'build/prof');
const EXAMPLES = process.env.EXAMPLES || join(ROOT, 'build/examples');
const RELEASE = join(ROOT, 'tests/speedscope/node_modules/speedscope/dist/release');
// WebGL on SwiftShader (see above): it is also chromium's fallback today,
// the flags keep it when the fallback goes.
const WEBGL_FLAGS = ['--use-angle=swiftshader', '--enable-unsafe-swiftshader'];
const TYPES = {
	'.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css',
	'.json': 'application/json', '.wasm': 'application/wasm',
	'.png': 'image/png', '.ico': 'image/x-icon', '.woff2': 'font/woff2',
};

let dir, rec, server, base, browser;
// The profiles the server hands out besides speedscope's own files.
const profiles = new Map();

function prof(...args) {
	return execFileSync(PROF, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
}

// GET /NAME: a profile of the map, else a file of speedscope's release.
function serve(req, res) {
	const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
	let body = profiles.get(path);
	if (body === undefined) {
		const file = normalize(join(RELEASE, path));
		try {
			if (!file.startsWith(RELEASE + '/'))
				throw new Error('outside');
			body = readFileSync(file);
		} catch {
			res.writeHead(404);
			res.end();
			return;
		}
	}
	res.writeHead(200, { 'content-type': TYPES[extname(path)] || 'text/plain' });
	res.end(body);
}

before(async () => {
	dir = mkdtempSync(join(tmpdir(), 'prof-speedscope-'));
	rec = join(dir, 'threads.data');
	execFileSync(PROF, ['record', '-F', '999', '-o', rec, '--', join(EXAMPLES, 'threads'), '2'],
		{ stdio: ['ignore', 'ignore', 'pipe'] });
	const out = join(dir, 'threads.speedscope.json');
	prof('report', '-i', rec, '--format', 'speedscope', '-o', out);
	profiles.set('/profile.json', readFileSync(out));
	// Cut short: not JSON, and not any other format speedscope knows.
	profiles.set('/broken.json', readFileSync(out).subarray(0, 200));
	server = createServer(serve);
	await new Promise((r) => server.listen(0, '127.0.0.1', r));
	base = `http://127.0.0.1:${server.address().port}`;
	browser = await launchBrowser(WEBGL_FLAGS);
});

after(async () => {
	await browser?.close();
	server?.close();
	if (dir)
		rmSync(dir, { recursive: true, force: true });
});

// Opens speedscope on the profile at PATH and resolves once it has either
// loaded it (the title changes from "speedscope" to the profile's) or
// failed: an alert (unrecognized format, empty profile), the error screen,
// a page error. Every dialog, page error and console line is kept in
// page.seen.
async function open(path) {
	const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
	page.seen = { dialogs: [], errors: [], logs: [] };
	let failed;
	const failure = new Promise((r) => { failed = r; });
	page.on('dialog', (d) => {
		page.seen.dialogs.push(d.message());
		failed();
		return d.dismiss();
	});
	page.on('pageerror', (e) => {
		page.seen.errors.push(String(e));
		failed();
	});
	page.on('console', (m) => {
		if (m.type() === 'error')
			page.seen.errors.push(`console: ${m.text()}`);
		else
			page.seen.logs.push(m.text());
	});
	await page.goto(`${base}/index.html#profileURL=${encodeURIComponent(path)}`);
	const loaded = page.waitForFunction(() => document.title !== 'speedscope' ||
		document.body.innerText.includes('Something went wrong'));
	loaded.catch(() => {}); // after a failure: rejected when the page closes
	await Promise.race([failure, loaded]);
	return page;
}

// What went wrong on PAGE, as a list of lines (empty: nothing).
async function problems(page) {
	const text = await page.evaluate(() => document.body.innerText);
	return [
		...page.seen.dialogs.map((m) => `alert: ${m}`),
		...page.seen.errors,
		...(text.includes('Something went wrong') ? ['speedscope: Something went wrong'] : []),
	];
}

// The profile selector, opened from the toolbar's "NAME (I/N)": its rows
// as [{name, weight}] (weight: the profile's samples).
async function selectorRows(page) {
	await page.getByText(/\(\d+\/\d+\)$/).click();
	const rows = page.locator('table tbody tr');
	await rows.first().waitFor();
	return rows.evaluateAll((trs) => trs.map((tr) => ({
		name: tr.cells[1].textContent,
		weight: Number(tr.cells[2].textContent),
	})));
}

// The samples of each thread, "NAME (TID)" as speedscope's profiles are
// named, from `prof report --tids` (roots NAME/TID). With LEAF, only the
// stacks ending in it (its self samples).
function threadSamples(leaf) {
	const samples = new Map();
	for (const line of prof('report', '-i', rec, '--tids').split('\n')) {
		const m = /^([^;]*)\/(\d+);(?:.*;)?([^;]*) (\d+)$/.exec(line);
		if (!m || (leaf !== undefined && m[3] !== leaf))
			continue;
		const key = `${m[1]} (${m[2]})`;
		samples.set(key, (samples.get(key) || 0) + Number(m[4]));
	}
	return samples;
}

// `prof report --top` rows: [{self, name, selfShare}] (share in percent).
function topRows(...args) {
	return prof('report', '-i', rec, '--top', '1000', ...args).split('\n').slice(1)
		.filter((l) => l.trim()).map((l) => {
			const f = l.trim().split(/\s+/);
			return { selfShare: parseFloat(f[0]), self: Number(f[2]), name: f.slice(4).join(' ') };
		});
}

test('speedscope loads the profile: no error, WebGL up, the title names it', async () => {
	const page = await open('/profile.json');
	assert.deepEqual(await problems(page), []);
	assert.ok(page.seen.logs.some((l) => l.startsWith('WebGL initialized')), page.seen.logs.join('\n'));
	assert.ok(page.seen.logs.includes('Importing as speedscope json file'), page.seen.logs.join('\n'));
	// speedscope's title is the file's "name", which prof sets to its input.
	assert.equal(await page.title(), `${rec} - speedscope`);
	await page.close();
});

test('every thread is a profile of the selector, with its samples', async () => {
	const page = await open('/profile.json');
	const rows = await selectorRows(page);
	const expected = threadSamples();
	assert.ok(expected.size >= 4, [...expected.keys()].join(', ')); // alpha, beta, pool-1, pool-2
	assert.deepEqual(new Map(rows.map((r) => [r.name, r.weight])), expected);
	for (const name of ['alpha', 'beta', 'pool-1', 'pool-2'])
		assert.ok(rows.some((r) => r.name.startsWith(`${name} (`)), name);
	assert.deepEqual(await problems(page), []);
	await page.close();
});

// The Sandwich view's row of function NAME in the profile THREAD (picked in
// the selector): {index, self: "N (P%)", selfBar} (index: its place, the
// rows sorted by self time, heaviest first; selfBar: the width of the self
// column's bar, the exact percentage the text rounds).
async function sandwichRow(page, thread, name) {
	await selectorRows(page);
	await page.locator('table tbody tr', { hasText: thread }).click();
	await page.getByText(`${thread} (`).waitFor();
	await page.getByText('Sandwich').click();
	const cell = page.getByRole('cell', { name, exact: true });
	return cell.evaluate((td) => {
		const tr = td.parentElement;
		return {
			index: [...tr.parentElement.children].indexOf(tr),
			self: tr.cells[1].textContent,
			selfBar: parseFloat(tr.cells[1].querySelector('[style*="width"]').style.width),
		};
	});
}

test("Sandwich lists prof report --top's hottest function first, with its share", async () => {
	const page = await open('/profile.json');
	const hottest = topRows()[0];
	const all = (await selectorRows(page)).reduce((sum, r) => sum + r.weight, 0);
	await page.keyboard.press('Escape');
	// Every thread that runs it (alpha for burn_alpha; pool-1 and pool-2
	// for pool_burn), heaviest first.
	const inThreads = [...threadSamples(hottest.name)].sort((a, b) => b[1] - a[1]);
	let self = 0;
	for (const [thread, samples] of inThreads) {
		const row = await sandwichRow(page, thread, hottest.name);
		const m = /^(\d+) \(([<>]?)([\d.]+)%\)$/.exec(row.self);
		assert.ok(m, row.self);
		assert.equal(Number(m[1]), samples, thread);
		self += samples;
		// The thread's hottest function too: first of its Sandwich.
		if (thread === inThreads[0][0])
			assert.equal(row.index, 0);
		// Its share of the thread: prof report --tid's self% (two
		// decimals) within 0.01 points of the bar's exact width, within 1
		// point of the figure speedscope prints (whole percents from 10%,
		// ">99%" above 99).
		const tid = /\((\d+)\)$/.exec(thread)[1];
		const inThread = topRows('--tid', tid).find((r) => r.name === hottest.name);
		console.log(`${hottest.name} in ${thread}: speedscope self ${row.self}, bar ` +
			`${row.selfBar}%; prof report --tid ${tid} --top: ${inThread.selfShare}%`);
		assert.ok(Math.abs(row.selfBar - inThread.selfShare) <= 0.01, `${row.selfBar} vs ${inThread.selfShare}`);
		const printed = Number(m[3]);
		if (m[2] === '>')
			assert.ok(inThread.selfShare >= printed, `${row.self} vs ${inThread.selfShare}`);
		else
			assert.ok(Math.abs(printed - inThread.selfShare) <= 1, `${row.self} vs ${inThread.selfShare}`);
	}
	// Its share of all samples (every profile's): prof report --top's
	// self% within 0.01 points.
	const share = (100 * self) / all;
	console.log(`${hottest.name} of all: speedscope ${share.toFixed(3)}%, prof report --top ${hottest.selfShare}%`);
	assert.ok(Math.abs(share - hottest.selfShare) <= 0.01, `${share} vs ${hottest.selfShare}`);
	assert.deepEqual(await problems(page), []);
	await page.close();
});

test('a broken file shows speedscope failing, which the checks above see', async () => {
	const page = await open('/broken.json');
	const seen = await problems(page);
	assert.notDeepEqual(seen, []);
	console.log(seen.join(' / '));
	assert.equal(await page.title(), 'speedscope');
	await page.close();
});
