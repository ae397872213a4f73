// 90-start.js: the page's layout (title, legend, heatmap, flamegraph, one
// under the other, as wide as the window), the URL fragment
// (#range=START_MS-END_MS: the selection, kept on reload and applied when
// edited), window.timeline for tests and tools, and the start.
function layoutPage() {
	var w = L.width, y = 22;
	var put = function (id, x, yy, anchor) {
		var e = byId(id);
		if (!e)
			return;
		e.setAttribute('x', x);
		e.setAttribute('y', yy);
		if (anchor)
			e.setAttribute('text-anchor', anchor);
	};
	put('title', w / 2, y);
	put('subtitle', w / 2, y + 18);
	put('cut', MARGIN, y + 34);
	byId('legend-zero').setAttribute('x', MARGIN);
	byId('legend-zero').setAttribute('y', L.top - 16);
	byId('legend-ramp').setAttribute('x', MARGIN + 18);
	byId('legend-ramp').setAttribute('y', L.top - 16);
	put('legend-max', MARGIN + 144, L.top - 7);
	var y2 = L.top + L.height + 20;
	put('details', MARGIN, y2);
	put('flametitle', MARGIN, y2 + 20);
	var fl = byId('flame');
	fl.setAttribute('x', MARGIN);
	fl.setAttribute('y', y2 + 30);
	fl.setAttribute('width', w - 2 * MARGIN);
	var h = y2 + 30 + Number(fl.getAttribute('height') || 0) + 10;
	root.setAttribute('width', w);
	root.setAttribute('height', Math.max(h, 200));
	root.removeAttribute('viewBox');
}

function rangeMs(c0, c1) {
	return [c0 * T.cellMs, (c1 + 1) * T.cellMs];
}

// Selects cells c0..c1 (inclusive): marks them, draws their flamegraph,
// and keeps the range in the URL.
function select(c0, c1) {
	c0 = Math.max(0, Math.min(NCELLS - 1, c0));
	c1 = Math.max(c0, Math.min(NCELLS - 1, c1));
	showSelection(c0, c1, true);
	var ms = rangeMs(c0, c1), h = '#range=' + ms[0] + '-' + ms[1];
	if (location.hash !== h)
		history.replaceState(null, '', h);
}

function fromHash() {
	var m = /[#&]range=(\d+)-(\d+)/.exec(location.hash);
	if (!m)
		return;
	var a = Number(m[1]), b = Number(m[2]);
	if (b <= a)
		return;
	select(Math.floor(a / T.cellMs), Math.ceil(b / T.cellMs) - 1);
}

window.timeline = {
	columns: T.columns, rows: T.rows, cellMs: T.cellMs, group: T.group, total: T.total,
	counts: function () { return Array.from(counts); },
	select: select,
	selection: function () {
		if (!sel)
			return null;
		var ms = rangeMs(sel.c0, sel.c1);
		return { c0: sel.c0, c1: sel.c1, startMs: ms[0], endMs: ms[1],
			total: lastTotals ? lastTotals[0] : 0 };
	},
	// Every frame with samples in the last selection: {i, name, count,
	// depth, parent}.
	flame: function () {
		var out = [];
		for (var i = 0; lastTotals && i < T.nframes; i++)
			if (lastTotals[i])
				out.push({ i: i, name: nameOf[i], count: lastTotals[i], depth: depth[i],
					parent: parent[i] });
		return out;
	},
	drawn: function () { return drawn.slice(); },
	// Zooms into frame i of flame()'s parent numbering (0: out); the frame
	// zoomed now.
	zoom: function (i) { if (i !== undefined) { zoom = 0; zoomTo(i); } return zoom; },
	cellBox: cellBox,
	status: function () { return byId('details').textContent; },
};

function start() {
	loadData();
	var ft = document.createElementNS(SVGNS, 'text');
	ft.setAttribute('id', 'flametitle');
	byId('flame').parentNode.insertBefore(ft, byId('flame'));
	layoutHeatmap();
	layoutPage();
	byId('flame').addEventListener('mousemove', onFlameHover);
	byId('flame').addEventListener('click', onFlameClick);
	window.addEventListener('hashchange', fromHash);
	window.addEventListener('resize', function () {
		layoutHeatmap();
		if (sel)
			drawRange(sel.c0, sel.c1);
		layoutPage();
	});
	fromHash();
	root.setAttribute('data-ready', '1');
}

if (document.readyState === 'loading')
	document.addEventListener('DOMContentLoaded', start);
else
	start();
})();
