// 00-data.js: the timeline page's script (prof svg --timeline), part 1:
// the data the page embeds, decoded (svg/timeline.c writes it; the format
// is in docs/prof-svg.md, Timeline). Names are read with textContent and
// only ever set as text: a name is never markup. The files of
// svg/timeline-js/ are one script, concatenated in the order of their
// names; this one opens its function, 90-start.js closes it.
(function () {
'use strict';
var SVGNS = 'http://www.w3.org/2000/svg';
var XHTML = 'http://www.w3.org/1999/xhtml';
var root = document.documentElement;
function num(a) { return Number(root.getAttribute(a)); }
var T = {
	columns: num('data-columns'), rows: num('data-rows'), cellMs: num('data-cell-ms'),
	group: num('data-group'), total: num('data-total'), max: num('data-max'),
	nframes: num('data-frames'), countname: root.getAttribute('data-countname'),
};
var NCELLS = T.columns * T.rows;
function byId(id) { return document.getElementById(id); }
function meta(id) { var e = byId(id); return e ? e.textContent : ''; }

var VLQ = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
var DIGIT = new Int8Array(128).fill(-1);
for (var d = 0; d < 64; d++)
	DIGIT[VLQ.charCodeAt(d)] = d;
// Base-64 VLQ numbers (svg/hidden.c's digits), one after the other.
function vlqReader(s) {
	var at = 0;
	return {
		next: function () {
			var v = 0, mul = 1, x;
			do {
				x = DIGIT[s.charCodeAt(at++)];
				if (x < 0 || at > s.length)
					throw new Error('bad table at ' + at);
				v += (x & 31) * mul;
				mul *= 32;
			} while (x & 32);
			return v;
		},
		done: function () { return at >= s.length; },
	};
}

// The heatmap: counts per cell (column * rows + row). The tables come
// after the script in the document: loadData() reads them at the start.
var counts = new Float64Array(NCELLS);
function loadCells() {
	var lines = meta('tl-cells').split('\n');
	for (var c = 0; c < T.columns && c < lines.length; c++) {
		var f = lines[c].split(',');
		for (var r = 0; r < f.length && r < T.rows; r++)
			if (f[r])
				counts[c * T.rows + r] = Number(f[r]);
	}
}

// The frames, depth-first: parent, depth, name (0 is "all").
var parent = new Int32Array(T.nframes), depth = new Int32Array(T.nframes);
var nameOf = new Array(T.nframes);
function loadFrames() {
	var names = meta('tl-names').split('\n');
	var rd = vlqReader(meta('tl-frames'));
	parent[0] = -1;
	nameOf[0] = 'all';
	for (var i = 1; i < T.nframes; i++) {
		var up = rd.next(), p = i - 1;
		for (var k = 0; k < up; k++)
			p = parent[p];
		parent[i] = p;
		depth[i] = depth[p] + 1;
		nameOf[i] = names[rd.next()];
	}
}

function loadData() {
	loadCells();
	loadFrames();
}

// The groups' pairs, decoded on the first selection.
var groups = null;
function decodeGroups() {
	if (groups)
		return groups;
	var rd = vlqReader(meta('tl-groups'));
	var ng = Math.ceil(NCELLS / T.group), start = new Int32Array(ng + 1);
	var fr = [], ct = [];
	for (var g = 0; g < ng; g++) {
		var n = rd.next(), prev = 0;
		start[g] = fr.length;
		for (var k = 0; k < n; k++) {
			prev += rd.next();
			fr.push(prev);
			ct.push(rd.next());
		}
	}
	start[ng] = fr.length;
	groups = { start: start, frame: Int32Array.from(fr), count: Float64Array.from(ct) };
	return groups;
}

// Per frame: the samples of cells c0..c1 (inclusive, widened to whole
// groups) in it and above it.
function rangeTotals(c0, c1) {
	var G = decodeGroups(), g0 = Math.floor(c0 / T.group), g1 = Math.floor(c1 / T.group);
	var tot = new Float64Array(T.nframes);
	for (var p = G.start[g0]; p < G.start[g1 + 1]; p++)
		tot[G.frame[p]] += G.count[p];
	for (var i = T.nframes - 1; i > 0; i--)
		tot[parent[i]] += tot[i];
	return tot;
}
