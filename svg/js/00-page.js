/*
 * svg/js/00-page.js: the interactive part of the SVGs `prof svg` writes,
 * first of the files of svg/js/, which the Makefile concatenates in order
 * and embeds into the binary as a C string (svg/embed-js.awk); every SVG
 * carries the script inline (no network). This file opens the function the
 * others share and holds its state and helpers. docs/prof-svg.md describes
 * the DOM it works on and the state it exposes for tests.
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

