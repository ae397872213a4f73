// lib.mjs: what the browser test (flamegraph.test.mjs) and the browser
// benchmark (bench/svg-browser.sh, through measure.mjs) share:
//   - launching Debian's chromium headless through playwright-core (no
//     browser download, no network);
//   - a model of the flamegraph computed from folded text alone (the tree
//     prof svg should draw: merged paths, siblings by name, frames narrower
//     than the minimum width left out), which gives the expected names,
//     counts and search shares;
//   - a deterministic generator of folded input with a given number of
//     distinct frames, for the size and speed measurements.
import { chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

// The flags the machine's closed network needs (no background connections)
// and that root needs (--no-sandbox). Every launch gets a new empty profile:
// playwright-core's launch() makes a temporary --user-data-dir itself (and
// refuses one in args) and removes it on close. EXTRA: more flags (the
// speedscope test's WebGL ones).
export async function launchBrowser(extra = []) {
	return chromium.launch({
		executablePath: CHROMIUM,
		headless: true,
		args: [
			'--headless',
			'--no-sandbox',
			'--disable-gpu',
			'--disable-quic',
			'--no-first-run',
			'--disable-background-networking',
			'--disable-component-update',
			'--disable-sync',
			...extra,
		],
	});
}

// Folded text ("a;b;c COUNT" lines) to [{frames, count}].
export function parseFolded(text) {
	const stacks = [];
	for (const line of text.split('\n')) {
		const m = /^(.*) (\d+)$/.exec(line);
		if (m)
			stacks.push({ frames: m[1].split(';'), count: Number(m[2]) });
	}
	return stacks;
}

// C's strcmp order on the names' UTF-8 bytes (what --sort alpha uses).
function byteCompare(a, b) {
	return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

// The flamegraph of STACKS as prof svg draws it (docs/prof-svg.md, "What is
// drawn"): a root "all", paths merged from the root, siblings sorted by
// name, frames whose count is below minFraction of the total (default:
// flamegraph.pl's 0.1 px of the 1200 px a fluid graph is laid out for)
// left out with everything above them. Returns the frames in the SVG's depth-first order, each
// {name, count, depth, parent, end} (end: one past its subtree's last
// index, as in the page's script).
export const DEFAULT_MIN_FRACTION = 0.1 / 1200;

export function modelFrames(stacks, minFraction = DEFAULT_MIN_FRACTION) {
	const root = { name: 'all', count: 0, kids: new Map() };
	for (const { frames, count } of stacks) {
		root.count += count;
		let node = root;
		for (const name of frames) {
			let kid = node.kids.get(name);
			if (!kid) {
				kid = { name, count: 0, kids: new Map() };
				node.kids.set(name, kid);
			}
			kid.count += count;
			node = kid;
		}
	}
	const minTotal = Math.max(minFraction * root.count, 1);
	const out = [];
	const walk = (node, depth, parent) => {
		const i = out.length;
		const f = { name: node.name, count: node.count, depth, parent, end: 0 };
		out.push(f);
		const kids = [...node.kids.values()].sort((a, b) => byteCompare(a.name, b.name));
		for (const kid of kids)
			if (kid.count >= minTotal)
				walk(kid, depth + 1, i);
		f.end = out.length;
	};
	walk(root, 0, -1);
	return out;
}

// The "matched %" the page should show for regex RE while frame Z is zoomed
// (0: not zoomed), from the model: the samples under Z inside an outermost
// matching frame, or all of Z's when Z or one of its callers (not the root)
// matches. Returns {count, of, percent} with percent a number.
export function modelMatched(frames, re, z = 0) {
	const hit = (i) => i > 0 && re.test(frames[i].name);
	const of = frames[z].count;
	let count = 0;
	let inside = false;
	for (let j = z; j > 0; j = frames[j].parent)
		if (hit(j))
			inside = true;
	if (inside) {
		count = of;
	} else {
		for (let j = z; j < frames[z].end;) {
			if (hit(j)) {
				count += frames[j].count;
				j = frames[j].end;
			} else {
				j++;
			}
		}
	}
	return { count, of, percent: of > 0 ? (100 * count) / of : 0 };
}

// The share (percent) of the samples whose stack holds a frame matching RE,
// straight from the folded text (no tree, no pruning).
export function foldedShare(stacks, re) {
	let all = 0, hit = 0;
	for (const { frames, count } of stacks) {
		all += count;
		if (frames.some((f) => re.test(f)))
			hit += count;
	}
	return all > 0 ? (100 * hit) / all : 0;
}

// The share (percent) of the samples under the frame at PREFIX (its path of
// names from the root, without "all") whose stack holds a frame matching
// RE anywhere: what "Matched" says while that frame is zoomed, exactly,
// whatever was drawn. Returns {count, of, percent}.
export function foldedShareUnder(stacks, re, prefix) {
	let of = 0, count = 0;
	for (const { frames, count: c } of stacks) {
		if (frames.length < prefix.length || prefix.some((n, k) => frames[k] !== n))
			continue;
		of += c;
		if (frames.some((f) => re.test(f)))
			count += c;
	}
	return { count, of, percent: of > 0 ? (100 * count) / of : 0 };
}

// What a graph of STACKS leaves out at minFraction of the total: the
// frames (distinct paths) narrower than that, and the samples whose stacks
// end in one of them.
export function hiddenFrames(stacks, minFraction) {
	const paths = new Map();
	let total = 0;
	for (const { frames, count } of stacks) {
		total += count;
		for (let k = 1; k <= frames.length; k++) {
			const p = frames.slice(0, k).join(';');
			paths.set(p, (paths.get(p) || 0) + count);
		}
	}
	const min = Math.max(minFraction * total, 1);
	let frames = 0, samples = 0;
	for (const c of paths.values())
		if (c < min)
			frames++;
	for (const s of stacks)
		if (paths.get(s.frames.join(';')) < min)
			samples += s.count;
	return { frames, samples, total };
}

// Display rounding as the page does it: two decimals.
export function pct(v) {
	return v.toFixed(2);
}

// A small deterministic PRNG (mulberry32), so generated inputs are the same
// on every run.
export function rng(seed) {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

// Folded text whose flamegraph has exactly NFRAMES frames below "all" when
// nothing is pruned (--minwidth 0): a random tree grown node by node (a new
// node's parent is mostly one of the last few nodes, so paths get 10 to 40
// deep and share prefixes), names drawn from a pool of realistic-looking
// function names (unique among siblings), 1 to 4 samples of self time on
// every node (so every path is a line of its own).
export function syntheticFolded(nframes, seed = 42) {
	const rand = rng(seed);
	const mods = ['net', 'db', 'http', 'json', 'alloc', 'sched', 'io', 'crypto', 'cache', 'log'];
	const pool = [];
	for (let i = 0; i < 3000; i++)
		pool.push(`${mods[i % mods.length]}::${['read', 'write', 'parse', 'encode', 'step', 'run'][i % 6]}_${i}`);
	const nodes = [{ path: null, depth: 0, kids: new Set() }]; // the root, "all"
	const lines = [];
	const MAXDEPTH = 40;
	while (nodes.length <= nframes) {
		let p;
		const r = rand();
		if (r < 0.85 && nodes.length > 1) // deepen a recent path
			p = nodes[nodes.length - 1 - Math.floor(rand() * Math.min(8, nodes.length - 1))];
		else // branch anywhere
			p = nodes[Math.floor(rand() * nodes.length)];
		if (p.depth >= MAXDEPTH)
			p = nodes[Math.floor(rand() * Math.min(nodes.length, 200))];
		let name = pool[Math.floor(rand() * pool.length)];
		while (p.kids.has(name))
			name = pool[Math.floor(rand() * pool.length)];
		p.kids.add(name);
		const path = p.path ? `${p.path};${name}` : name;
		nodes.push({ path, depth: p.depth + 1, kids: new Set() });
		lines.push(`${path} ${1 + Math.floor(rand() * 4)}`);
	}
	return lines.join('\n') + '\n';
}

// Resolves after the next frame has been produced (a rAF callback runs
// before style, layout and paint; a task queued from it runs after).
export const AFTER_NEXT_FRAME = 'new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)))';
