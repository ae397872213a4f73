/*
 * flamegraph.js: the interactive part of the SVGs `prof svg` writes. The
 * Makefile embeds this file into the binary as a C string; every SVG
 * carries it inline (no network). docs/prof-svg.md describes the DOM it
 * works on and the state it exposes for tests.
 *
 * On load it reads every frame back from the DOM once: the name and count
 * from the <title> ("NAME (COUNT COUNTNAME)", or in a differential graph
 * "NAME (COUNT COUNTNAME; old A, new B, +D, +P%)"), x and width (in drawing
 * units) and the row from the <rect>. Frames come in depth-first order, so
 * parents and subtree ends follow from the rows with one stack; a subtree
 * is then a contiguous range of indexes, which keeps zoom and the
 * matched-% computation proportional to what is shown.
 *
 * - hover: the status line (#details) shows name, count, % of the total
 *   and, while zoomed, % of the zoomed frame;
 * - click: zoom; the frame fills the width, its subtree is rescaled, its
 *   ancestors span the width and stay clickable, the rest is out of view
 *   (see zoom below);
 * - search (button, Ctrl-F): a regex (JavaScript syntax), matches
 *   highlighted, #matched gives the share of the zoomed frame's samples
 *   under a matching frame (outermost matches only, so nested matches are
 *   not counted twice); an invalid regex is reported in #details;
 * - state (zoomed frame, search, ignore case) lives in the URL fragment,
 *   "#x=INDEX&s=REGEX&i=1", and is restored on load and on hashchange.
 *
 * Embedding (svg/embed-js.awk) drops indentation and comments on lines
 * of their own; keep other comments short, and keep the file free of the
 * character sequence that ends a CDATA section: the script sits in one.
 */
(function () {
	'use strict';

	var NS = 'http://www.w3.org/2000/svg';
	var CHAR_WIDTH = 0.59; /* average glyph width per px of font size (as the C side) */
	var PAD = 3; /* px left of a label */
	var doc = document;
	var root = doc.documentElement;

	var framesEl, labelsEl, details, matchedEl, unzoomBtn, searchBtn, icBtn;
	var total, units, rows, fh, inverted, countname, fontSize, charPx;
	var n = 0;
	var els = [], rects = [], names = [];
	/* a differential graph's "old A, new B, +D, +P%" per frame */
	var changes = [];
	var counts, x0, w0, cx, cw, depth, parent, end;
	var zoomed = 0; /* index of the zoomed frame; 0, the root, when not zoomed */
	var shown = []; /* ancestors and subtree of the zoomed frame */
	var moved = []; /* frames whose x and width were rewritten */
	var viewBox; /* #frames' own */
	var query = '', icase = false, hits = null, hitList = [], status = '';
	var matched = null; /* {count, of, percent} of the last search */
	var restoring = false, started = false, relabelPending = false;
	var viewWidth = 1200; /* px of #frames */

	function attr(el, name) {
		return el.getAttribute(name);
	}

	function thousands(v) {
		/* separators in the whole part only: counts may be fractional
		 * ("0.5 samples", folded input with fractions) */
		var s = String(v).split('.');
		s[0] = s[0].replace(/\B(?=(\d{3})+(?!\d))/g, ',');
		return s.join('.');
	}

	function percent(a, b) {
		return (b > 0 ? (100 * a) / b : 0).toFixed(2);
	}

	function escapeRegExp(s) {
		return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
	}

	function rowY(i) {
		return (inverted ? depth[i] : rows - 1 - depth[i]) * fh;
	}

	function frameOf(node) {
		while (node && node !== framesEl) {
			if (node._frame !== undefined)
				return node._frame;
			node = node.parentNode;
		}
		return -1;
	}

	function describe(i) {
		var s = names[i] + ' (' + thousands(counts[i]) + ' ' + countname + ', ' +
			percent(counts[i], total) + '%';
		if (zoomed)
			s += ', ' + percent(counts[i], counts[zoomed]) + '% of ' + names[zoomed];
		if (changes[i])
			s += '; ' + changes[i];
		return s + ')';
	}

	/* ---- labels ---- */

	function fitLabel(name, chars) {
		if (name.length <= chars)
			return name;
		var cps = Array.from(name);
		if (cps.length <= chars)
			return name;
		return cps.slice(0, chars - 2).join('') + '..';
	}

	function relabel() {
		var scale = viewWidth / units;
		var frag = doc.createDocumentFragment();
		var count = zoomed ? shown.length : n;
		for (var q = 0; q < count; q++) {
			var j = zoomed ? shown[q] : q;
			var chars = Math.floor((cw[j] * scale - PAD) / charPx);
			if (chars < 3)
				continue;
			var t = doc.createElementNS(NS, 'text');
			t.setAttribute('x', (cx[j] * scale).toFixed(1));
			t.setAttribute('y', rowY(j) + (fh - 1) / 2 + fontSize / 4);
			t.textContent = fitLabel(names[j], chars);
			frag.appendChild(t);
		}
		labelsEl.textContent = '';
		labelsEl.appendChild(frag);
	}

	/* #frames spans the root's width (its CSS box). Read once and on
	 * resize, never after DOM changes: that would force a layout. */
	function measure() {
		var width = root.getBoundingClientRect().width;
		viewWidth = width > 0 ? width : 1200;
	}

	function scheduleRelabel() {
		if (relabelPending)
			return;
		relabelPending = true;
		requestAnimationFrame(function () {
			relabelPending = false;
			measure();
			relabel();
		});
	}

	/* ---- zoom ----
	 *
	 * A few attributes per zoom, however many frames there are: the other
	 * frames are never touched, they fall outside the view of #frames and
	 * are clipped (hiding tens of thousands of elements would cost the
	 * browser hundreds of milliseconds of layout). Usually the viewBox of
	 * #frames becomes the zoomed frame's span and its ancestors' rects get
	 * that span too. Renderers map coordinates in single precision, which
	 * blurs the picture past a zoom factor of about a thousand; there (a
	 * small --minwidth) the frames in view get exact x and width instead,
	 * computed here in double precision and moved right by one whole
	 * width, and the viewBox shows that second width (class "exact").
	 */

	var VIEWBOX_ZOOM_MAX = 1000;

	function place(j, x, w) {
		rects[j].setAttribute('x', x);
		rects[j].setAttribute('width', w);
	}

	function zoom(i) {
		i = Number(i);
		if (!(i >= 0 && i < n) || i !== Math.floor(i))
			i = 0;
		var k, j;
		for (k = 0; k < shown.length; k++) {
			j = shown[k];
			cx[j] = x0[j];
			cw[j] = w0[j];
		}
		for (k = 0; k < moved.length; k++)
			place(moved[k], x0[moved[k]], w0[moved[k]]);
		moved = [];
		framesEl.classList.remove('exact');
		framesEl.setAttribute('viewBox', viewBox);
		els[zoomed].classList.remove('z');
		shown = [];
		zoomed = i;
		if (i) {
			var zx = x0[i], zw = w0[i], scale = units / zw;
			for (j = parent[i]; j >= 0; j = parent[j]) {
				cx[j] = 0;
				cw[j] = units;
				shown.push(j);
			}
			shown.reverse();
			var ancestors = shown.length;
			for (j = i; j < end[i]; j++) {
				cx[j] = (x0[j] - zx) * scale;
				cw[j] = w0[j] * scale;
				shown.push(j);
			}
			if (scale <= VIEWBOX_ZOOM_MAX) {
				framesEl.setAttribute('viewBox', zx + ' 0 ' + zw + ' ' + rows * fh);
				moved = shown.slice(0, ancestors);
				for (k = 0; k < ancestors; k++)
					place(shown[k], zx, zw);
			} else {
				framesEl.setAttribute('viewBox', units + ' 0 ' + units + ' ' + rows * fh);
				framesEl.classList.add('exact');
				moved = shown.slice();
				for (k = 0; k < shown.length; k++)
					place(shown[k], units + cx[shown[k]], cw[shown[k]]);
			}
			els[i].classList.add('z');
			framesEl.classList.add('zoomed');
			unzoomBtn.classList.remove('hide');
		} else {
			framesEl.classList.remove('zoomed');
			unzoomBtn.classList.add('hide');
		}
		relabel();
		updateMatched();
		save();
	}

	/* Is frame i in view: the zoomed frame, above it, or one of its callers? */
	function inView(i) {
		if (!zoomed)
			return i >= 0 && i < n;
		if (i >= zoomed && i < end[zoomed])
			return true;
		for (var j = parent[zoomed]; j >= 0; j = parent[j])
			if (j === i)
				return true;
		return false;
	}

	/* ---- search ---- */

	function updateMatched() {
		if (!hits) {
			matched = null;
			matchedEl.textContent = query && status ? 'Invalid regex' : '';
			return;
		}
		var z = zoomed, sum = 0, inside = false, j;
		for (j = z; j > 0; j = parent[j])
			if (hits[j])
				inside = true;
		if (inside) {
			sum = counts[z];
		} else {
			for (j = z; j < end[z];) {
				if (hits[j]) {
					sum += counts[j];
					j = end[j]; /* outermost only: skip the subtree */
				} else {
					j++;
				}
			}
		}
		matched = {count: sum, of: counts[z], percent: Number(percent(sum, counts[z]))};
		matchedEl.textContent = 'Matched: ' + percent(sum, counts[z]) + '%';
	}

	function search(q, ignoreCase) {
		if (typeof ignoreCase === 'boolean') {
			icase = ignoreCase;
			icBtn.classList.toggle('on', icase);
		}
		query = q === undefined || q === null ? '' : String(q);
		for (var k = 0; k < hitList.length; k++)
			els[hitList[k]].classList.remove('m');
		hitList = [];
		hits = null;
		status = '';
		if (query) {
			var re = null;
			try {
				re = new RegExp(query, icase ? 'i' : '');
			} catch (err) {
				status = 'Invalid regex: ' + err.message;
			}
			if (re) {
				var memo = new Map();
				hits = new Uint8Array(n);
				for (var j = 1; j < n; j++) {
					var hit = memo.get(names[j]);
					if (hit === undefined) {
						hit = re.test(names[j]);
						memo.set(names[j], hit);
					}
					if (hit) {
						hits[j] = 1;
						hitList.push(j);
						els[j].classList.add('m');
					}
				}
			}
		}
		searchBtn.textContent = query ? 'Reset Search' : 'Search';
		details.textContent = status;
		updateMatched();
		save();
	}

	function ask() {
		var q = window.prompt('Search for a regular expression (empty: reset)', query);
		if (q !== null)
			search(q);
	}

	/* ---- state in the URL ---- */

	function save() {
		if (restoring)
			return;
		var parts = [];
		if (zoomed)
			parts.push('x=' + zoomed);
		if (query)
			parts.push('s=' + encodeURIComponent(query));
		if (icase)
			parts.push('i=1');
		var hash = parts.length ? '#' + parts.join('&') : '';
		if (hash === location.hash)
			return;
		try {
			history.replaceState(null, '', hash || location.pathname + location.search);
		} catch (err) {
			location.hash = hash;
		}
	}

	function restore() {
		var state = {x: 0, s: '', i: false};
		location.hash.slice(1).split('&').forEach(function (kv) {
			var eq = kv.indexOf('=');
			if (eq < 0)
				return;
			var key = kv.slice(0, eq), value;
			try {
				value = decodeURIComponent(kv.slice(eq + 1));
			} catch (err) {
				return;
			}
			if (key === 'x')
				state.x = Number(value);
			else if (key === 's')
				state.s = value;
			else if (key === 'i')
				state.i = value === '1';
		});
		restoring = true;
		try {
			search(state.s, state.i);
			zoom(state.x);
		} finally {
			restoring = false;
		}
	}

	/* ---- start ---- */

	function read() {
		var suffix = new RegExp(' \\(([0-9,]+(?:\\.[0-9]+)?) ' + escapeRegExp(countname) +
			'(?:; ([^()]*))?\\)$');
		var gs = framesEl.children, stack = [];
		n = gs.length;
		counts = new Float64Array(n);
		x0 = new Float64Array(n);
		w0 = new Float64Array(n);
		cx = new Float64Array(n);
		cw = new Float64Array(n);
		depth = new Int32Array(n);
		parent = new Int32Array(n);
		end = new Int32Array(n);
		for (var i = 0; i < n; i++) {
			var g = gs[i], r = g.lastElementChild;
			var title = g.firstElementChild.textContent, m = suffix.exec(title);
			g._frame = i;
			els.push(g);
			rects.push(r);
			names.push(m ? title.slice(0, m.index) : title);
			counts[i] = m ? Number(m[1].replace(/,/g, '')) : 0;
			changes.push(m && m[2] ? m[2] : '');
			x0[i] = cx[i] = Number(attr(r, 'x'));
			w0[i] = cw[i] = Number(attr(r, 'width'));
			var row = Math.round(Number(attr(r, 'y')) / fh);
			depth[i] = inverted ? row : rows - 1 - row;
			while (stack.length && depth[stack[stack.length - 1]] >= depth[i])
				end[stack.pop()] = i;
			parent[i] = stack.length ? stack[stack.length - 1] : -1;
			stack.push(i);
		}
		while (stack.length)
			end[stack.pop()] = n;
	}

	function start() {
		if (started)
			return;
		started = true;
		framesEl = doc.getElementById('frames');
		labelsEl = doc.getElementById('labels').firstElementChild;
		details = doc.getElementById('details');
		matchedEl = doc.getElementById('matched');
		unzoomBtn = doc.getElementById('unzoom');
		searchBtn = doc.getElementById('search');
		icBtn = doc.getElementById('ignorecase');
		total = Number(attr(root, 'data-total'));
		units = Number(attr(root, 'data-units'));
		rows = Number(attr(root, 'data-rows'));
		fh = Number(attr(root, 'data-fh'));
		inverted = attr(root, 'data-inverted') === '1';
		countname = attr(root, 'data-countname') || 'samples';
		fontSize = parseFloat(attr(root, 'font-size')) || 12;
		charPx = fontSize * CHAR_WIDTH;
		viewBox = attr(framesEl, 'viewBox');
		measure();
		read();

		framesEl.addEventListener('mouseover', function (e) {
			var i = frameOf(e.target);
			if (i >= 0)
				details.textContent = describe(i);
		});
		framesEl.addEventListener('mouseout', function () {
			details.textContent = status;
		});
		framesEl.addEventListener('click', function (e) {
			var i = frameOf(e.target);
			if (i >= 0)
				zoom(i);
		});
		unzoomBtn.addEventListener('click', function () {
			zoom(0);
		});
		searchBtn.addEventListener('click', function () {
			if (query)
				search('');
			else
				ask();
		});
		icBtn.addEventListener('click', function () {
			search(query, !icase);
		});
		doc.addEventListener('keydown', function (e) {
			if ((e.ctrlKey || e.metaKey) && (e.key === 'f' || e.key === 'F')) {
				e.preventDefault();
				ask();
			} else if (e.key === 'Escape') {
				if (query)
					search('');
				else if (zoomed)
					zoom(0);
			}
		});
		window.addEventListener('resize', scheduleRelabel);
		window.addEventListener('hashchange', restore);
		searchBtn.classList.remove('hide');
		icBtn.classList.remove('hide');
		restore();
		root.setAttribute('data-ready', '1');
	}

	/* For tests and tools: the same actions as the mouse and keyboard. */
	window.flamegraph = {
		zoom: function (i) {
			zoom(i);
		},
		reset: function () {
			zoom(0);
		},
		search: function (q, ignoreCase) {
			search(q, ignoreCase);
		},
		frames: function () {
			return n;
		},
		frame: function (i) {
			return i >= 0 && i < n ? {name: names[i], count: counts[i], depth: depth[i],
				parent: parent[i], element: els[i], change: changes[i]} : null;
		},
		index: function (el) {
			return frameOf(el);
		},
		inView: function (i) {
			return inView(i);
		},
		state: function () {
			return {zoomed: zoomed, query: query, ignoreCase: icase, matched: matched,
				status: status};
		}
	};

	if (doc.readyState === 'loading')
		doc.addEventListener('DOMContentLoaded', start);
	else
		start();
	window.addEventListener('load', start);
})();
