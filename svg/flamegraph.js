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
 *   not counted twice), drawn or too narrow to draw: those are read from
 *   the table svg/hidden.c writes, on the first search; an invalid regex
 *   is reported in #details. The
 *   page matches with its own linear-time matcher, never with RegExp,
 *   whose backtracking a crafted link could make run for hours;
 * - the match list (#matchlist, made here, under the status line): per
 *   matching name, the share
 *   of the zoomed frame's samples under a frame of that name (counted as
 *   #matched counts); n / N or its buttons step through the drawn matches
 *   in view, the current one outlined (class "cur") and scrolled to;
 * - while zoomed, the zoomed frame's callers are greyed (class "p", as
 *   flamegraph.pl does);
 * - right-click on a frame: a menu (#menu, made here) to copy its name or
 *   its stack (root;...;frame); c and C do the same on the hovered frame.
 *   navigator.clipboard when the page has it, else a prompt holding the
 *   text, selected, to copy by hand;
 * - the menu's sandwich view (#sandwich, made here, over the graph): who
 *   calls a function and what it calls, merged over all its frames,
 *   hidden ones included: callers upward above it, callees downward;
 * - state (zoomed frame, search, ignore case, the sandwich view's function,
 *   the match list hidden, the current match) lives in the URL fragment,
 *   "#x=INDEX&s=REGEX&i=1&w=NAME&l=0&c=INDEX", and is restored on load and
 *   on hashchange;
 * - a fluid graph (data-fluid) is written 1200 px wide with a viewBox, for
 *   an <img>, which runs no script; here it becomes 100% wide;
 * - labels on dark fills (white text contrasts more) get class "d",
 *   except on a differential graph's see-through vanished frames.
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

	/* Fluid in a tab: before anything is laid out. */
	if (root.getAttribute('data-fluid') === '1') {
		root.removeAttribute('viewBox');
		root.setAttribute('width', '100%');
	}

	var framesEl, labelsEl, details, matchedEl, unzoomBtn, searchBtn, icBtn;
	var total, units, rows, fh, inverted, countname, fontSize, charPx;
	var n = 0;
	var els = [], rects = [], names = [];
	/* a differential graph's "old A, new B, +D, +P%" per frame */
	var changes = [];
	var darkFill = []; /* per frame: does its fill take a white label */
	/* The frames too narrow to draw (hidden.c), read on the first search:
	 * per hidden frame its count, the end of its subtree and its names
	 * (hNames[hName[k]] to hNames[hName[k + 1] - 1], lines of hTable: a
	 * chain of only children is one frame); per drawn frame the range of
	 * its hidden subtrees, hFirst[i] to hLast[i]. */
	var hidden = null;
	var hiddenSums = null; /* per drawn frame: matched samples hidden above it */
	var counts, x0, w0, cx, cw, depth, parent, end;
	var zoomed = 0; /* index of the zoomed frame; 0, the root, when not zoomed */
	var shown = []; /* ancestors and subtree of the zoomed frame */
	var moved = []; /* frames whose x and width were rewritten */
	var viewBox; /* #frames' own */
	var query = '', icase = false, hits = null, hitList = [], status = '';
	var failure = ''; /* #matched's word for a search that could not run */
	var matched = null; /* {count, of, percent} of the last search */
	var restoring = false, started = false, relabelPending = false;
	var searchM = null; /* the matcher of the active search */
	var hiddenHit = null; /* per line of the hidden names: -1 untested, 0, 1 */
	var listEl = null, listShown = true, shares = [], baseHeight = 0, listHeight = 0;
	var current = -1; /* the frame n / N went to, or -1 */
	var hovered = -1, menuEl = null, menuFrame = -1;
	var copied = ''; /* the last text copied, for tests */
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
			if (darkFill[j])
				t.setAttribute('class', 'd');
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
		for (j = parent[zoomed]; j >= 0; j = parent[j])
			els[j].classList.remove('p');
		setCurrent(-1);
		shown = [];
		zoomed = i;
		if (i) {
			var zx = x0[i], zw = w0[i], scale = units / zw;
			for (j = parent[i]; j >= 0; j = parent[j]) {
				cx[j] = 0;
				cw[j] = units;
				shown.push(j);
				els[j].classList.add('p');
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

	/* ---- search: a regex matcher in linear time ----
	 *
	 * The search comes from the URL too, so a link can carry any pattern,
	 * and RegExp backtracks: ^(A+)+$ on a name of 40 A's runs for minutes
	 * and nothing can interrupt it. So RegExp only checks the syntax (it
	 * compiles in linear time, and its message is the one people know);
	 * the page then compiles the pattern itself into a Thompson NFA (a
	 * program of the instructions below) and runs every thread of it in
	 * step over a name, once per character: the work per name is at most
	 * the program's length times the name's, and SEARCH_WORK bounds a
	 * whole search. Supported: JavaScript's syntax without the u flag
	 * (literals, escapes, ., classes, ^ $ \b \B, groups, |, quantifiers,
	 * lazy or not) and the i flag; refused with a message: backreferences,
	 * lookaround, and repeats that would make the program too long. */

	var PROG_MAX = 10000; /* instructions of a compiled search */
	var REPEAT_MAX = 1000; /* the largest n or m of {n,m} */
	var NEST_MAX = 100; /* groups inside groups */
	var SEARCH_WORK = 1e8; /* thread steps of one search, all names together */
	var OP_SET = 0, OP_SPLIT = 1, OP_JMP = 2, OP_ASSERT = 3, OP_MATCH = 4;

	function Unsupported(message) {
		this.message = message;
	}

	function isWord(c) {
		return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
	}

	function isDigit(c) {
		return c >= 48 && c <= 57;
	}

	function isSpace(c) {
		return (c >= 9 && c <= 13) || c === 32 || c === 0xa0 || c === 0x1680 ||
			(c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f ||
			c === 0x205f || c === 0x3000 || c === 0xfeff;
	}

	function isLineEnd(c) {
		return c === 10 || c === 13 || c === 0x2028 || c === 0x2029;
	}

	/* The i flag's Canonicalize() without u: the upper case when it is one
	 * code unit and does not take a non-ASCII character to ASCII. */
	var canonCache = new Int32Array(65536).fill(-1);

	function canon(c) {
		var k = canonCache[c];
		if (k < 0) {
			var u = String.fromCharCode(c).toUpperCase();
			k = u.length === 1 && !(c >= 128 && u.charCodeAt(0) < 128) ? u.charCodeAt(0) : c;
			canonCache[c] = k;
		}
		return k;
	}

	/* A class under i matches c when one of its members has c's canonical
	 * form: c itself, that form, or the lower case of either. */
	function foldClass(f) {
		return function (c) {
			if (f(c))
				return true;
			var k = canon(c);
			if (f(k))
				return true;
			var l = String.fromCharCode(c).toLowerCase();
			if (l.length === 1 && canon(l.charCodeAt(0)) === k && f(l.charCodeAt(0)))
				return true;
			l = String.fromCharCode(k).toLowerCase();
			return l.length === 1 && canon(l.charCodeAt(0)) === k && f(l.charCodeAt(0));
		};
	}

	var ESCAPE_SETS = {
		d: isDigit,
		D: function (c) { return !isDigit(c); },
		w: isWord,
		W: function (c) { return !isWord(c); },
		s: isSpace,
		S: function (c) { return !isSpace(c); }
	};
	var ESCAPE_CODES = {t: 9, n: 10, v: 11, f: 12, r: 13};

	/* The pattern SRC (valid for RegExp) as a tree: {t: 'set', f},
	 * {t: 'cat', a}, {t: 'alt', a}, {t: 'rep', n, min, max (-1: no
	 * bound)}, {t: 'assert', k: '^' '$' 'b' 'B'}. Throws Unsupported. */
	function parsePattern(src, icase) {
		var pos = 0;
		var named = /\(\?<[^=!]/.test(src);

		function peek() {
			return src.charAt(pos);
		}

		function literal(code) {
			if (!icase)
				return {t: 'set', f: function (c) { return c === code; }};
			var k = canon(code);
			return {t: 'set', f: function (c) { return canon(c) === k; }};
		}

		function hex(n) {
			var m = new RegExp('^[0-9a-fA-F]{' + n + '}').exec(src.slice(pos));
			if (!m)
				return -1;
			pos += n;
			return parseInt(m[0], 16);
		}

		/* After a backslash: an escape that stands for one character. */
		function charEscape(e) {
			if (ESCAPE_CODES[e] !== undefined)
				return ESCAPE_CODES[e];
			if (e === 'x' || e === 'u') {
				var v = hex(e === 'x' ? 2 : 4);
				return v >= 0 ? v : e.charCodeAt(0);
			}
			if (e === 'c') {
				var l = src.charCodeAt(pos);
				if ((l >= 65 && l <= 90) || (l >= 97 && l <= 122)) {
					pos++;
					return l % 32;
				}
				throw new Unsupported('\\c without a letter');
			}
			if (e === '0' && !isDigit(src.charCodeAt(pos)))
				return 0;
			if (isDigit(e.charCodeAt(0)))
				throw new Unsupported('backreferences and octal escapes (\\' + e + ')');
			if (e === 'k' && named)
				throw new Unsupported('backreferences (\\k)');
			return e.charCodeAt(0);
		}

		function classAtom() {
			var c = src.charAt(pos++);
			if (c !== '\\')
				return {code: c.charCodeAt(0)};
			var e = src.charAt(pos++);
			if (ESCAPE_SETS[e])
				return {f: ESCAPE_SETS[e]};
			if (e === 'b')
				return {code: 8};
			return {code: charEscape(e)};
		}

		function charClass() {
			var negate = peek() === '^', ranges = [], sets = [];
			if (negate)
				pos++;
			while (peek() !== ']') {
				if (pos >= src.length)
					throw new Unsupported('an unterminated class');
				var a = classAtom();
				if (peek() === '-' && pos + 1 < src.length && src.charAt(pos + 1) !== ']') {
					pos++;
					var b = classAtom();
					if (a.f || b.f) {
						/* [\d-z]: no range, a '-' among the rest */
						[a, {code: 45}, b].forEach(function (x) {
							if (x.f)
								sets.push(x.f);
							else
								ranges.push(x.code, x.code);
						});
					} else {
						ranges.push(a.code, b.code);
					}
				} else if (a.f) {
					sets.push(a.f);
				} else {
					ranges.push(a.code, a.code);
				}
			}
			pos++;
			var f = function (c) {
				for (var k = 0; k < ranges.length; k += 2)
					if (c >= ranges[k] && c <= ranges[k + 1])
						return true;
				for (k = 0; k < sets.length; k++)
					if (sets[k](c))
						return true;
				return false;
			};
			var g = icase ? foldClass(f) : f;
			return {t: 'set', f: negate ? function (c) { return !g(c); } : g};
		}

		function atomEscape() {
			var e = src.charAt(pos++);
			if (ESCAPE_SETS[e])
				return {t: 'set', f: ESCAPE_SETS[e]};
			if (e === 'b' || e === 'B')
				return {t: 'assert', k: e};
			return literal(charEscape(e));
		}

		function group(depth) {
			if (src.charAt(pos) === '?') {
				var kind = src.charAt(pos + 1);
				if (kind === ':') {
					pos += 2;
				} else if (kind === '<' && src.charAt(pos + 2) !== '=' &&
					   src.charAt(pos + 2) !== '!') {
					pos = src.indexOf('>', pos) + 1; /* a named group */
				} else {
					throw new Unsupported(kind === '=' || kind === '!' || kind === '<'
						? 'lookaround ((?=, (?!, (?<=, (?<!)'
						: 'group modifiers ((?' + kind + ')');
				}
			}
			var inner = alternation(depth + 1);
			if (peek() !== ')')
				throw new Unsupported('an unbalanced group');
			pos++;
			return inner;
		}

		function term(depth) {
			var c = src.charAt(pos++);
			if (c === '^' || c === '$')
				return {t: 'assert', k: c};
			if (c === '.')
				return {t: 'set', f: function (x) { return !isLineEnd(x); }};
			if (c === '[')
				return charClass();
			if (c === '(')
				return group(depth);
			if (c === '\\')
				return atomEscape();
			return literal(c.charCodeAt(0));
		}

		function quantified(atom) {
			var c = peek(), min, max, m;
			if (c === '*' || c === '+' || c === '?') {
				pos++;
				min = c === '+' ? 1 : 0;
				max = c === '?' ? 1 : -1;
			} else if (c === '{' && (m = /^\{(\d+)(,(\d*))?\}/.exec(src.slice(pos)))) {
				pos += m[0].length;
				min = Number(m[1]);
				max = m[2] === undefined ? min : m[3] === '' ? -1 : Number(m[3]);
			} else {
				return atom;
			}
			if (peek() === '?')
				pos++; /* lazy: the same for a yes-or-no match */
			if (min > REPEAT_MAX || max > REPEAT_MAX)
				throw new Unsupported('a repeat count above ' + REPEAT_MAX);
			return {t: 'rep', n: atom, min: min, max: max};
		}

		function sequence(depth) {
			var items = [];
			while (pos < src.length && peek() !== '|' && peek() !== ')')
				items.push(quantified(term(depth)));
			return {t: 'cat', a: items};
		}

		function alternation(depth) {
			if (depth > NEST_MAX)
				throw new Unsupported('groups nested more than ' + NEST_MAX + ' deep');
			var alts = [sequence(depth)];
			while (peek() === '|') {
				pos++;
				alts.push(sequence(depth));
			}
			return alts.length === 1 ? alts[0] : {t: 'alt', a: alts};
		}

		var tree = alternation(0);
		if (pos < src.length)
			throw new Unsupported('an unbalanced group');
		return tree;
	}

	/* The tree as a program: parallel arrays op, f (a set's test), x and y
	 * (jump targets; an assertion's kind in x). Ends with OP_MATCH. */
	function compile(tree) {
		var op = [], f = [], x = [], y = [];

		function emit(o, fn, a, b) {
			if (op.length >= PROG_MAX)
				throw new Unsupported('a pattern that expands to more than ' + PROG_MAX +
					' steps');
			op.push(o);
			f.push(fn);
			x.push(a);
			y.push(b);
			return op.length - 1;
		}

		function gen(node) {
			var k, at, fix = [];
			if (node.t === 'set') {
				emit(OP_SET, node.f, 0, 0);
			} else if (node.t === 'assert') {
				emit(OP_ASSERT, null, node.k, 0);
			} else if (node.t === 'cat') {
				for (k = 0; k < node.a.length; k++)
					gen(node.a[k]);
			} else if (node.t === 'alt') {
				for (k = 0; k < node.a.length - 1; k++) {
					at = emit(OP_SPLIT, null, op.length + 1, 0);
					gen(node.a[k]);
					fix.push(emit(OP_JMP, null, 0, 0));
					y[at] = op.length;
				}
				gen(node.a[k]);
				for (k = 0; k < fix.length; k++)
					x[fix[k]] = op.length;
			} else {
				for (k = 0; k < node.min; k++)
					gen(node.n);
				if (node.max < 0) {
					at = emit(OP_SPLIT, null, op.length + 1, 0);
					gen(node.n);
					emit(OP_JMP, null, at, 0);
					y[at] = op.length;
				} else {
					for (k = node.min; k < node.max; k++) {
						fix.push(emit(OP_SPLIT, null, op.length + 1, 0));
						gen(node.n);
					}
					for (k = 0; k < fix.length; k++)
						y[fix[k]] = op.length;
				}
			}
		}

		gen(tree);
		emit(OP_MATCH, null, 0, 0);
		return {op: Uint8Array.from(op), f: f, x: x, y: y};
	}

	/* A matcher for SRC: {test(name), work} or {error}. test() returns
	 * whether the pattern matches anywhere in name, or null once the
	 * search's work is past SEARCH_WORK. */
	function matcher(src, icase) {
		var p;
		try {
			p = compile(parsePattern(src, icase));
		} catch (err) {
			if (err instanceof Unsupported)
				return {error: err.message};
			return {error: 'a pattern too complex to search (' + err.message + ')'};
		}
		var n = p.op.length, op = p.op, f = p.f, x = p.x, y = p.y;
		var cur = new Int32Array(n), next = new Int32Array(n), stack = new Int32Array(2 * n + 2);
		var mark = new Float64Array(n), stamp = 0, ncur = 0, nnext = 0;
		var m = {work: 0};

		function holds(k, s, i) {
			if (k === '^')
				return i === 0;
			if (k === '$')
				return i === s.length;
			var before = i > 0 && isWord(s.charCodeAt(i - 1));
			var after = i < s.length && isWord(s.charCodeAt(i));
			return (before !== after) === (k === 'b');
		}

		/* Adds the threads that pc leads to at position i of s, without
		 * reading a character, to next. True when one of them matches. */
		function add(pc, s, i) {
			var sp = 0;
			stack[sp++] = pc;
			while (sp) {
				pc = stack[--sp];
				if (mark[pc] === stamp)
					continue;
				mark[pc] = stamp;
				m.work++;
				switch (op[pc]) {
				case OP_SET:
					next[nnext++] = pc;
					break;
				case OP_MATCH:
					return true;
				case OP_JMP:
					stack[sp++] = x[pc];
					break;
				case OP_SPLIT:
					stack[sp++] = y[pc];
					stack[sp++] = x[pc];
					break;
				default:
					if (holds(x[pc], s, i))
						stack[sp++] = pc + 1;
				}
			}
			return false;
		}

		m.test = function (s) {
			if (m.work > SEARCH_WORK)
				return null;
			stamp++;
			nnext = 0;
			if (add(0, s, 0))
				return true;
			for (var i = 0; i < s.length; i++) {
				var t = cur;
				cur = next;
				next = t;
				ncur = nnext;
				nnext = 0;
				stamp++;
				var c = s.charCodeAt(i);
				for (var k = 0; k < ncur; k++)
					if (f[cur[k]](c) && add(cur[k] + 1, s, i + 1))
						return true;
				/* unanchored: a new try starts at every position */
				if (add(0, s, i + 1))
					return true;
				if (m.work > SEARCH_WORK)
					return null;
			}
			return false;
		};
		return m;
	}

	/* ---- hidden frames ---- */

	var VLQ = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

	/* The table of svg/hidden.c as arrays; null when nothing is hidden. */
	function readHidden() {
		var namesEl = doc.getElementById('hidden-names');
		var framesEl2 = doc.getElementById('hidden-frames');
		if (!namesEl || !framesEl2)
			return null;
		var table = namesEl.textContent.split('\n');
		var s = framesEl2.textContent, pos = 0;
		var scale = Math.pow(10, Number(attr(framesEl2, 'data-decimals')) || 0);
		var digit = new Int8Array(128).fill(-1);
		for (var k = 0; k < VLQ.length; k++)
			digit[VLQ.charCodeAt(k)] = k;
		function num() {
			var v = 0, mul = 1, d;
			do {
				var c = s.charCodeAt(pos++);
				d = c < 128 ? digit[c] : -1;
				if (d < 0 || pos > s.length)
					throw new Error('bad hidden-frames table');
				v += (d & 31) * mul;
				mul *= 32;
			} while (d & 32);
			return v;
		}
		var count = [], end = [], nameAt = [], nameList = [];
		var first = new Int32Array(n), last = new Int32Array(n), open = [];
		var frame = 0;
		while (pos < s.length) {
			frame += num();
			if (frame >= n)
				throw new Error('bad hidden-frames table');
			first[frame] = count.length;
			for (var t = num(); t; t = num()) {
				if (t % 2) {
					nameList.push((t - 1) / 2); /* an only child, same count */
					continue;
				}
				for (var up = t / 2 - 1; up > 0 && open.length; up--)
					end[open.pop()] = count.length;
				open.push(count.length);
				nameAt.push(nameList.length);
				nameList.push(num());
				count.push(num() / scale);
				end.push(0);
			}
			while (open.length)
				end[open.pop()] = count.length;
			last[frame] = count.length;
		}
		nameAt.push(nameList.length);
		return {table: table, count: count, end: end, nameAt: nameAt, names: nameList,
			first: first, last: last};
	}

	/* Per drawn frame, the samples of the outermost matching hidden frames
	 * above it, with matcher M; false when the search stopped. */
	function loadHidden() {
		if (hidden === null) {
			try {
				hidden = readHidden() || false;
			} catch (err) {
				hidden = false;
			}
		}
		return hidden;
	}

	function hiddenMatches(m) {
		loadHidden();
		var sums = new Float64Array(n);
		if (!hidden)
			return sums;
		var h = hidden, hit = hiddenHit = new Int8Array(h.table.length).fill(-1);
		for (var i = 0; i < n; i++) {
			for (var k = h.first[i]; k < h.last[i];) {
				var yes = false;
				for (var q = h.nameAt[k]; q < h.nameAt[k + 1] && !yes; q++) {
					var line = h.names[q];
					if (hit[line] < 0) {
						var r = m.test(h.table[line]);
						if (r === null)
							return false;
						hit[line] = r ? 1 : 0;
					}
					yes = hit[line] === 1;
				}
				if (yes) {
					sums[i] += h.count[k];
					k = h.end[k];
				} else {
					k++;
				}
			}
		}
		return sums;
	}

	/* ---- search ---- */

	function updateMatched() {
		if (!hits) {
			matched = null;
			matchedEl.textContent = query ? failure : '';
			shares = [];
			drawList();
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
					sum += hiddenSums[j];
					j++;
				}
			}
		}
		matched = {count: sum, of: counts[z], percent: Number(percent(sum, counts[z]))};
		matchedEl.textContent = 'Matched: ' + percent(sum, counts[z]) + '%';
		shares = nameShares();
		drawList();
	}

	/* ---- the match list ---- */

	var LIST_MAX = 12; /* names shown; the rest are counted */

	/* Ids for the matching names, per search: drawn frame j's is
	 * idOf.drawn[j], a hidden name line's idOf.hidden[line] (-1: not
	 * yet given), idOf.names[id] the name. */
	var idOf = null;

	function nameId(name) {
		var id = idOf.map.get(name);
		if (id === undefined) {
			id = idOf.names.length;
			idOf.names.push(name);
			idOf.map.set(name, id);
		}
		return id;
	}

	/* The id of hidden name LINE when it matches, else -1. */
	function hiddenLineId(line) {
		if (hiddenHit[line] < 0)
			hiddenHit[line] = searchM.test(hidden.table[line]) ? 1 : 0;
		if (hiddenHit[line] !== 1)
			return -1;
		if (idOf.hidden[line] < 0)
			idOf.hidden[line] = nameId(hidden.table[line]);
		return idOf.hidden[line];
	}

	/* Per matching name, the samples under the zoomed frame beneath a
	 * frame of that name, outermost only (a frame inside one of the same
	 * name adds nothing), drawn or hidden; all of the zoomed frame's when
	 * it or a caller has the name. One walk over the zoomed subtree with
	 * the names open on the path counted, into the hidden frames above a
	 * drawn frame only when some match there (hiddenSums). Sorted by
	 * count, most first. */
	function nameShares() {
		var z = zoomed, path = [], j, k;
		if (!idOf) {
			idOf = {map: new Map(), names: [], drawn: new Int32Array(n),
				hidden: new Int32Array(hidden ? hidden.table.length : 0).fill(-1)};
			for (k = 0; k < hitList.length; k++)
				idOf.drawn[hitList[k]] = nameId(names[hitList[k]]);
		}
		var ids = idOf.names.length + (hidden ? hidden.table.length : 0);
		var sums = new Float64Array(ids), open = new Int32Array(ids);
		var seen = new Uint8Array(ids);
		function add(id, c) {
			if (!open[id]) {
				sums[id] += c;
				seen[id] = 1;
			}
			open[id]++;
		}
		/* the hidden subtrees above drawn frame i */
		function hiddenAbove(i) {
			if (!hidden || !hiddenSums[i])
				return;
			var h = hidden, stack = [], lit = [], q, id;
			for (var k = h.first[i]; k < h.last[i]; k++) {
				while (stack.length && k >= h.end[stack[stack.length - 1]]) {
					stack.pop();
					for (id = lit.pop(); id.length;)
						open[id.pop()]--;
				}
				var these = [];
				for (q = h.nameAt[k]; q < h.nameAt[k + 1]; q++) {
					id = hiddenLineId(h.names[q]);
					if (id >= 0) {
						add(id, h.count[k]);
						these.push(id);
					}
				}
				stack.push(k);
				lit.push(these);
			}
			while (lit.length)
				for (id = lit.pop(); id.length;)
					open[id.pop()]--;
		}
		for (j = z; j > 0; j = parent[j])
			if (hits[j]) {
				k = idOf.drawn[j];
				sums[k] = counts[z];
				seen[k] = 1;
				open[k]++;
			}
		hiddenAbove(z);
		for (j = z + 1; j < end[z]; j++) {
			while (path.length && end[path[path.length - 1]] <= j) {
				k = path.pop();
				if (hits[k])
					open[idOf.drawn[k]]--;
			}
			if (hits[j])
				add(idOf.drawn[j], counts[j]);
			path.push(j);
			hiddenAbove(j);
		}
		var list = [];
		for (k = 0; k < idOf.names.length; k++)
			if (seen[k])
				list.push({name: idOf.names[k], count: sums[k],
					percent: Number(percent(sums[k], counts[z]))});
		list.sort(function (a, b) {
			return b.count - a.count || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
		});
		return list;
	}

	function listText(x, y, s, id) {
		var t = doc.createElementNS(NS, 'text');
		t.setAttribute('x', x);
		t.setAttribute('y', y);
		if (id)
			t.setAttribute('id', id);
		t.textContent = s;
		listEl.appendChild(t);
		return t;
	}

	/* Under the status line, the page made taller for it (so it hides no
	 * frame; a click on "Matched" hides or shows it): a header with the
	 * previous and next buttons, then a line per name, "P% NAME". */
	function drawList() {
		if (!listEl)
			return;
		listEl.textContent = '';
		var on = !!hits && listShown;
		listEl.classList.toggle('hide', !on);
		if (!on) {
			listHeight = 0;
			fitHeight();
			return;
		}
		var lh = Math.round(fontSize * 1.4), y = baseHeight + lh / 2, k;
		listText(10, y, '\u25c0 prev', 'prevmatch');
		listText(10 + 8 * charPx, y, 'next \u25b6', 'nextmatch');
		listText(10 + 17 * charPx, y, shares.length + (shares.length === 1 ? ' function' :
			' functions') + ' matched, ' + visibleHits().length + ' drawn in view:',
			'matchcount');
		for (k = 0; k < shares.length && k < LIST_MAX; k++)
			listText(10, y += lh, shares[k].percent.toFixed(2) + '% ' +
				shares[k].name).setAttribute('data-name', shares[k].name);
		if (shares.length > LIST_MAX)
			listText(10, y += lh, '(' + (shares.length - LIST_MAX) + ' more)');
		listHeight = Math.ceil(y + lh / 2);
		fitHeight();
	}

	/* The page's height: the graph's, or more for the list or the
	 * sandwich view. */
	function fitHeight() {
		root.setAttribute('height', Math.max(baseHeight, listHeight, sandwichHeight));
	}

	/* The drawn matches in view, left to right within a row's subtree
	 * (depth-first order). */
	function visibleHits() {
		if (!hits)
			return [];
		return hitList.filter(function (i) {
			return !zoomed || (i >= zoomed && i < end[zoomed]) || inView(i);
		});
	}

	function setCurrent(i) {
		if (current >= 0)
			els[current].classList.remove('cur');
		current = i;
		if (i < 0)
			return;
		els[i].classList.add('cur');
		els[i].scrollIntoView({block: 'nearest', inline: 'nearest'});
		details.textContent = describe(i);
		save();
	}

	/* To the next (STEP 1) or previous (-1) drawn match in view. */
	function step(dir) {
		var list = visibleHits();
		if (!list.length)
			return;
		var at = list.indexOf(current), k;
		if (at >= 0)
			k = (at + dir + list.length) % list.length;
		else
			k = dir > 0 ? 0 : list.length - 1;
		setCurrent(list[k]);
	}

	function search(q, ignoreCase) {
		if (typeof ignoreCase === 'boolean') {
			icase = ignoreCase;
			icBtn.classList.toggle('on', icase);
		}
		query = q === undefined || q === null ? '' : String(q);
		for (var k = 0; k < hitList.length; k++)
			els[hitList[k]].classList.remove('m');
		setCurrent(-1);
		hitList = [];
		hits = null;
		hiddenSums = null;
		searchM = null;
		idOf = null;
		status = '';
		failure = '';
		if (query) {
			var m = null;
			try {
				/* the syntax check only: see the matcher above */
				new RegExp(query, icase ? 'i' : '');
				m = matcher(query, icase);
			} catch (err) {
				status = 'Invalid regex: ' + err.message;
				failure = 'Invalid regex';
			}
			if (m && m.error) {
				status = 'Unsupported regex: ' + m.error + ' cannot be searched';
				failure = 'Unsupported regex';
			} else if (m) {
				var memo = new Map(), found = new Uint8Array(n), list = [];
				for (var j = 1; j < n && !failure; j++) {
					var hit = memo.get(names[j]);
					if (hit === undefined) {
						hit = m.test(names[j]);
						memo.set(names[j], hit);
					}
					if (hit === null) {
						status = 'Search stopped: this pattern needs more than ' +
							SEARCH_WORK + ' steps over these names';
						failure = 'Search stopped';
					} else if (hit) {
						found[j] = 1;
						list.push(j);
					}
				}
				var sums = failure ? null : hiddenMatches(m);
				if (sums === false) {
					status = 'Search stopped: this pattern needs more than ' +
						SEARCH_WORK + ' steps over these names';
					failure = 'Search stopped';
				}
				if (!failure) {
					searchM = m;
					hits = found;
					hiddenSums = sums;
					hitList = list;
					for (k = 0; k < list.length; k++)
						els[list[k]].classList.add('m');
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

	/* ---- copy, the frame menu ---- */

	/* Frame i's names from the root's child up to it, as folded text
	 * writes a stack. */
	function stackOf(i) {
		var list = [];
		for (; i > 0; i = parent[i])
			list.push(names[i]);
		return list.reverse().join(';');
	}

	function copy(text, what) {
		copied = text;
		function byHand() {
			window.prompt('Copy the ' + what + ' (Ctrl-C):', text);
		}
		var done = function () {
			details.textContent = 'Copied the ' + what + ': ' + text;
		};
		if (navigator.clipboard && navigator.clipboard.writeText)
			navigator.clipboard.writeText(text).then(done, byHand);
		else
			byHand();
	}

	var MENU = [['copyname', 'Copy name'], ['copystack', 'Copy stack'],
		['sandwichopen', 'Sandwich view']];

	function closeMenu() {
		if (menuEl)
			menuEl.classList.add('hide');
		menuFrame = -1;
	}

	/* The menu of frame i at (x, y) in the root's px. */
	function openMenu(i, x, y) {
		var lh = Math.round(fontSize * 1.6), wide = 0, k;
		menuFrame = i;
		menuEl.textContent = '';
		var bg = doc.createElementNS(NS, 'rect');
		menuEl.appendChild(bg);
		for (k = 0; k < MENU.length; k++) {
			var t = doc.createElementNS(NS, 'text');
			t.setAttribute('id', MENU[k][0]);
			t.setAttribute('x', x + 8);
			t.setAttribute('y', y + lh * (k + 0.7));
			t.textContent = MENU[k][1];
			menuEl.appendChild(t);
			wide = Math.max(wide, MENU[k][1].length);
		}
		bg.setAttribute('x', x);
		bg.setAttribute('y', y);
		bg.setAttribute('width', wide * charPx + 16);
		bg.setAttribute('height', lh * MENU.length);
		menuEl.classList.remove('hide');
	}

	function menuAction(id, i) {
		if (id === 'copyname')
			copy(names[i], 'name');
		else if (id === 'copystack')
			copy(stackOf(i), 'stack');
		else if (id === 'sandwichopen')
			sandwich(names[i]);
	}

	/* ---- the sandwich view ---- */

	/* Every frame, drawn or hidden, in depth-first order: visit(name,
	 * count, depth), the root "all" at depth 0. A hidden entry's chain of
	 * only children is one frame per name, each with the entry's count. */
	function walkAll(visit) {
		var h = loadHidden(), open = [];
		for (var i = 0; i < n; i++) {
			visit(names[i], counts[i], depth[i]);
			if (!h)
				continue;
			for (var k = h.first[i]; k < h.last[i]; k++) {
				while (open.length && k >= h.end[open[open.length - 1].k])
					open.pop();
				var d = open.length ? open[open.length - 1].d : depth[i];
				for (var q = h.nameAt[k]; q < h.nameAt[k + 1]; q++)
					visit(h.table[h.names[q]], h.count[k], ++d);
				open.push({k: k, d: d});
			}
			open = [];
		}
	}

	function trieKid(node, name) {
		var kid = node.kids.get(name);
		if (!kid) {
			kid = {name: name, count: 0, kids: new Map()};
			node.kids.set(name, kid);
		}
		return kid;
	}

	/* Function F's callers and callees, as two trees rooted at F:
	 * {callers, callees}, nodes {name, count, kids}. Only the outermost
	 * frame of F on a path counts (its callees include any F inside), so
	 * F's count is the samples whose stack holds F. */
	function sandwichTrees(f) {
		var callers = {name: f, count: 0, kids: new Map()};
		var callees = {name: f, count: 0, kids: new Map()};
		var path = [], at = [], fd = -1;
		walkAll(function (name, c, d) {
			path[d] = name;
			if (fd >= d)
				fd = -1;
			if (fd >= 0) {
				at[d] = trieKid(at[d - 1], name);
				at[d].count += c;
			} else if (name === f && d > 0) {
				fd = d;
				at[d] = callees;
				callees.count += c;
				callers.count += c;
				for (var node = callers, k = d - 1; k > 0; k--) {
					node = trieKid(node, path[k]);
					node.count += c;
				}
			}
		});
		return {callers: callers, callees: callees};
	}

	/* A tree as [{path, count}], paths from its root joined with ';'. */
	function flatten(node, prefix, out) {
		var path = prefix ? prefix + ';' + node.name : node.name;
		out.push({path: path, count: node.count});
		node.kids.forEach(function (kid) {
			flatten(kid, path, out);
		});
		return out;
	}

	function treeDepth(node) {
		var d = 0;
		node.kids.forEach(function (kid) {
			d = Math.max(d, treeDepth(kid));
		});
		return d + 1;
	}

	/* A name's color: a warm hue from its characters (the page's own, the
	 * graph's palette lives in the style). */
	function hue(name) {
		var v = 0;
		for (var k = 0; k < name.length; k++)
			v = (v * 31 + name.charCodeAt(k)) % 997;
		return 'hsl(' + (v % 50) + ',80%,' + (55 + v % 20) + '%)';
	}

	/* Draws NODE at row y0 (px), x and w in px, its kids a row up (dir
	 * -1) or down (1); frames under half a pixel are left out. */
	function drawTree(g, node, x, w, y0, dir, total, side) {
		if (w < 0.5)
			return;
		var el = doc.createElementNS(NS, 'g');
		el.setAttribute('class', side);
		var title = doc.createElementNS(NS, 'title');
		title.textContent = node.name + ' (' + thousands(node.count) + ' ' + countname + ', ' +
			percent(node.count, total) + '%)';
		el.appendChild(title);
		var r = doc.createElementNS(NS, 'rect');
		r.setAttribute('x', x.toFixed(2));
		r.setAttribute('y', y0);
		r.setAttribute('width', w.toFixed(2));
		r.setAttribute('height', fh - 1);
		r.setAttribute('fill', hue(node.name));
		el.appendChild(r);
		var chars = Math.floor((w - PAD) / charPx);
		if (chars >= 3) {
			var t = doc.createElementNS(NS, 'text');
			t.setAttribute('x', (x + PAD).toFixed(2));
			t.setAttribute('y', y0 + (fh - 1) / 2 + fontSize / 4);
			t.textContent = fitLabel(node.name, chars);
			el.appendChild(t);
		}
		el._name = node.name;
		g.appendChild(el);
		var kids = Array.from(node.kids.values()).sort(function (a, b) {
			return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
		});
		for (var k = 0; k < kids.length; k++) {
			var kw = (w * kids[k].count) / node.count;
			drawTree(g, kids[k], x, kw, y0 + dir * fh, dir, total, side);
			x += kw;
		}
	}

	var sandwichEl = null, sandwichName = null, sandwichHeight = 0;

	function closeSandwich() {
		if (!sandwichEl)
			return;
		sandwichEl.parentNode.removeChild(sandwichEl);
		sandwichEl = null;
		sandwichName = null;
		sandwichHeight = 0;
		fitHeight();
		save();
	}

	/* Over the graph, from the top of the page: a header, F's callers
	 * upward (F at the bottom of that half), then F's callees downward.
	 * Returns the trees (sandwichTrees). */
	function sandwich(f) {
		closeSandwich();
		measure();
		var t = sandwichTrees(f), w = viewWidth - 20;
		var up = treeDepth(t.callers), down = treeDepth(t.callees);
		var top = fontSize * 3, mid = top + up * fh;
		sandwichName = f;
		sandwichEl = doc.createElementNS(NS, 'g');
		sandwichEl.setAttribute('id', 'sandwich');
		var bg = doc.createElementNS(NS, 'rect');
		bg.setAttribute('class', 'bg');
		bg.setAttribute('width', '100%');
		bg.setAttribute('height', '100%');
		sandwichEl.appendChild(bg);
		var head = doc.createElementNS(NS, 'text');
		head.setAttribute('x', 10);
		head.setAttribute('y', fontSize * 2);
		head.setAttribute('id', 'sandwichtitle');
		head.textContent = 'Callers and callees of ' + f + ' (' + thousands(t.callees.count) + ' ' +
			countname + ', ' + percent(t.callees.count, total) + '%)';
		sandwichEl.appendChild(head);
		var close = doc.createElementNS(NS, 'text');
		close.setAttribute('x', '100%');
		close.setAttribute('dx', -10);
		close.setAttribute('y', fontSize * 2);
		close.setAttribute('id', 'sandwichclose');
		close.textContent = 'Close';
		sandwichEl.appendChild(close);
		var g = doc.createElementNS(NS, 'g');
		g.setAttribute('transform', 'translate(10)');
		sandwichEl.appendChild(g);
		drawTree(g, t.callers, 0, w, mid - fh, -1, t.callees.count, 'caller');
		drawTree(g, t.callees, 0, w, mid, 1, t.callees.count, 'callee');
		root.appendChild(sandwichEl);
		sandwichHeight = Math.ceil(mid + down * fh + fontSize);
		fitHeight();
		save();
		return t;
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
		if (sandwichName !== null)
			parts.push('w=' + encodeURIComponent(sandwichName));
		if (!listShown)
			parts.push('l=0');
		if (current >= 0)
			parts.push('c=' + current);
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
		var state = {x: 0, s: '', i: false, w: null, l: true, c: -1};
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
			else
				restoreMore(state, key, value);
		});
		restoring = true;
		try {
			search(state.s, state.i);
			zoom(state.x);
			restoreViews(state);
		} finally {
			restoring = false;
		}
	}

	/* The keys of the views over the graph: w (the sandwich view's
	 * function), l=0 (the match list hidden), c (the current match). */
	function restoreMore(state, key, value) {
		if (key === 'w')
			state.w = value;
		else if (key === 'l')
			state.l = value !== '0';
		else if (key === 'c' && /^[0-9]+$/.test(value))
			state.c = Number(value);
	}

	/* After the search and zoom they depend on: the list shown or hidden,
	 * the current match (only a drawn match), the sandwich view. */
	function restoreViews(state) {
		if (listShown !== state.l) {
			listShown = state.l;
			drawList();
		}
		setCurrent(hits && state.c > 0 && state.c < n && hits[state.c] ? state.c : -1);
		if (state.w)
			sandwich(state.w);
		else
			closeSandwich();
	}

	/* ---- start ---- */

	/* Which color classes (".cK{fill:#rrggbb}" in the style) are dark:
	 * white text contrasts more on them (WCAG 2's relative luminance). */
	function darkClasses() {
		var dark = {}, re = /\.(c\d+)\{fill:#([0-9a-f]{6})\}/g, m;
		var style = doc.getElementsByTagName('style')[0];
		var css = style ? style.textContent : '';
		function lin(c) {
			c /= 255;
			return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
		}
		while ((m = re.exec(css))) {
			var v = parseInt(m[2], 16);
			var l = 0.2126 * lin(v >> 16 & 255) + 0.7152 * lin(v >> 8 & 255) +
				0.0722 * lin(v & 255);
			dark[m[1]] = 1.05 / (l + 0.05) > (l + 0.05) / 0.05;
		}
		return dark;
	}

	function read() {
		var dark = darkClasses();
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
			/* a vanished frame (class v) is see-through: pale */
			darkFill.push(!!dark[attr(r, 'class')] && !g.classList.contains('v'));
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
		var style = doc.getElementsByTagName('style')[0];
		if (style)
			style.appendChild(doc.createTextNode(
				'#frames g.p{opacity:.5}\n' +
				'#frames g.cur rect{stroke:#000;stroke-width:2;vector-effect:non-scaling-stroke}\n' +
				'#matched,#prevmatch,#nextmatch,#menu text{cursor:pointer}\n' +
				'#menu rect{fill:#fff;stroke:#888}\n#menu text:hover{fill:#00c}\n' +
				'#sandwich g g{cursor:pointer}\n#sandwich g g:hover rect{stroke:#000}\n' +
				'#sandwichclose{text-anchor:end;cursor:pointer}\n'));
		baseHeight = Number(attr(root, 'height'));
		listEl = doc.createElementNS(NS, 'g');
		listEl.setAttribute('id', 'matchlist');
		listEl.setAttribute('class', 'hide');
		root.appendChild(listEl);
		listEl.addEventListener('click', function (e) {
			var id = e.target.getAttribute('id');
			if (id === 'prevmatch' || id === 'nextmatch')
				step(id === 'nextmatch' ? 1 : -1);
		});
		matchedEl.addEventListener('click', function () {
			listShown = !listShown;
			drawList();
			save();
		});
		menuEl = doc.createElementNS(NS, 'g');
		menuEl.setAttribute('id', 'menu');
		menuEl.setAttribute('class', 'hide');
		root.appendChild(menuEl);
		menuEl.addEventListener('click', function (e) {
			var i = menuFrame;
			e.stopPropagation();
			closeMenu();
			menuAction(e.target.getAttribute('id'), i);
		});
		framesEl.addEventListener('contextmenu', function (e) {
			var i = frameOf(e.target);
			if (i < 0)
				return;
			e.preventDefault();
			var r = root.getBoundingClientRect();
			openMenu(i, e.clientX - r.left, e.clientY - r.top);
		});
		doc.addEventListener('click', closeMenu);
		/* in the sandwich view: Close, or a function's own sandwich */
		root.addEventListener('click', function (e) {
			if (!sandwichEl || !sandwichEl.contains(e.target))
				return;
			if (e.target.getAttribute('id') === 'sandwichclose')
				closeSandwich();
			else if (e.target.parentNode && e.target.parentNode._name !== undefined)
				sandwich(e.target.parentNode._name);
		});

		framesEl.addEventListener('mouseover', function (e) {
			var i = frameOf(e.target);
			if (i >= 0)
				details.textContent = describe(i);
			hovered = i;
		});
		framesEl.addEventListener('mouseout', function () {
			details.textContent = status;
			hovered = -1;
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
			} else if ((e.key === 'n' || e.key === 'N') && !e.ctrlKey && !e.metaKey &&
				   !e.altKey) {
				step(e.key === 'n' ? 1 : -1);
			} else if ((e.key === 'c' || e.key === 'C') && hovered >= 0 && !e.ctrlKey &&
				   !e.metaKey && !e.altKey) {
				menuAction(e.key === 'c' ? 'copyname' : 'copystack', hovered);
			} else if (e.key === 'Escape' && menuFrame >= 0) {
				closeMenu();
			} else if (e.key === 'Escape' && sandwichEl) {
				closeSandwich();
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
		/* What the search's own matcher says of each name: true or false,
		 * null past the work bound, or {error}. */
		match: function (q, ignoreCase, list) {
			var m = matcher(String(q), !!ignoreCase);
			return m.error ? {error: m.error} : list.map(function (s) {
				return m.test(String(s));
			});
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
				status: status, current: current, sandwich: sandwichName,
				listShown: listShown};
		},
		/* The match list: [{name, count, percent}], most first. */
		matches: function () {
			return shares.slice();
		},
		step: function (dir) {
			step(dir < 0 ? -1 : 1);
		},
		/* The last text a copy wrote (or offered to copy by hand). */
		copied: function () {
			return copied;
		},
		stack: function (i) {
			return stackOf(i);
		},
		/* Function NAME's sandwich view: opens it and returns its trees
		 * as {callers, callees}, each [{path, count}] from NAME; no
		 * NAME: closes it. */
		sandwich: function (name) {
			if (name === undefined || name === null) {
				closeSandwich();
				return null;
			}
			var t = sandwich(String(name));
			return {callers: flatten(t.callers, '', []), callees: flatten(t.callees, '', [])};
		}
	};

	if (doc.readyState === 'loading')
		doc.addEventListener('DOMContentLoaded', start);
	else
		start();
	window.addEventListener('load', start);
})();
