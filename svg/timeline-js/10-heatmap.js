// 10-heatmap.js: the heatmap, drawn in canvases (one pixel a cell, scaled
// up with pixelated rendering) inside a foreignObject that scrolls
// sideways when the columns do not fit; tiles of at most TILE columns,
// as canvases have a maximum width. Colors: data-zero for no samples,
// data-low to data-high for 1 to the most of a cell, linearly (the
// legend's gradient); selected cells in blues.
var TILE = 4096, MARGIN = 10;
var L = { cw: 2, ch: 6, top: 80, width: 1200, height: 0, tiles: [] };
var sel = null;   // {c0, c1}: the selected cells, inclusive
var drag = null;  // the cell a drag started at
var anchor = -1;  // the last click's cell, for shift-click

function rgb(hex) {
	var v = parseInt(hex.slice(1), 16);
	return [v >> 16 & 255, v >> 8 & 255, v & 255];
}
var ZERO = rgb(root.getAttribute('data-zero')), LOW = rgb(root.getAttribute('data-low'));
var HIGH = rgb(root.getAttribute('data-high'));
var SZERO = [221, 230, 255], SLOW = [190, 210, 255], SHIGH = [16, 48, 160];

function cellColor(n, selected, out) {
	var lo = selected ? SLOW : LOW, hi = selected ? SHIGH : HIGH;
	if (!n) {
		var z = selected ? SZERO : ZERO;
		out[0] = z[0]; out[1] = z[1]; out[2] = z[2];
		return;
	}
	var t = T.max > 1 ? (n - 1) / (T.max - 1) : 1;
	for (var k = 0; k < 3; k++)
		out[k] = Math.round(lo[k] + (hi[k] - lo[k]) * t);
}

function layoutHeatmap() {
	L.width = Math.max(300, window.innerWidth || 1200);
	var avail = L.width - 2 * MARGIN;
	L.cw = Math.max(2, Math.min(24, Math.floor(avail / T.columns)));
	L.ch = Math.max(3, Math.min(14, Math.floor(300 / T.rows)));
	var scroll = T.columns * L.cw > avail ? 16 : 0;
	L.height = T.rows * L.ch + scroll;
	var g = byId('heatmap');
	while (g.firstChild)
		g.removeChild(g.firstChild);
	var fo = document.createElementNS(SVGNS, 'foreignObject');
	fo.setAttribute('x', MARGIN);
	fo.setAttribute('y', L.top);
	fo.setAttribute('width', avail);
	fo.setAttribute('height', L.height);
	var box = document.createElementNS(XHTML, 'div');
	box.setAttribute('id', 'heatbox');
	box.setAttribute('style', 'width:' + avail + 'px;height:' + L.height +
		'px;overflow-x:auto;overflow-y:hidden;white-space:nowrap;line-height:0;cursor:crosshair');
	L.tiles = [];
	for (var first = 0; first < T.columns; first += TILE) {
		var n = Math.min(TILE, T.columns - first);
		var cv = document.createElementNS(XHTML, 'canvas');
		cv.width = n;
		cv.height = T.rows;
		cv.setAttribute('style', 'display:inline-block;image-rendering:pixelated;width:' +
			(n * L.cw) + 'px;height:' + (T.rows * L.ch) + 'px');
		cv.dataset.first = first;
		box.appendChild(cv);
		L.tiles.push(cv);
	}
	fo.appendChild(box);
	g.appendChild(fo);
	box.addEventListener('mousedown', onDown);
	box.addEventListener('mousemove', onMove);
	window.addEventListener('mouseup', onUp);
	L.box = box;
	paint();
}

function isSelected(c) {
	return sel && c >= sel.c0 && c <= sel.c1;
}

// Repaints the tiles holding cells c0..c1 (all of them without).
function paint(c0, c1) {
	var col = [0, 0, 0], t0 = 0, t1 = L.tiles.length - 1;
	if (c0 !== undefined) {
		t0 = Math.floor(c0 / T.rows / TILE);
		t1 = Math.min(t1, Math.floor(c1 / T.rows / TILE));
	}
	for (var t = t0; t <= t1; t++) {
		var cv = L.tiles[t], first = Number(cv.dataset.first), ctx = cv.getContext('2d');
		var img = ctx.createImageData(cv.width, T.rows), px = img.data;
		for (var x = 0; x < cv.width; x++)
			for (var r = 0; r < T.rows; r++) {
				var c = (first + x) * T.rows + r, at = (r * cv.width + x) * 4;
				cellColor(counts[c], isSelected(c), col);
				px[at] = col[0]; px[at + 1] = col[1]; px[at + 2] = col[2]; px[at + 3] = 255;
			}
		ctx.putImageData(img, 0, 0);
	}
}

// The cell under a mouse event, or -1.
function cellAt(ev) {
	var cv = ev.target;
	if (!cv || cv.tagName.toLowerCase() !== 'canvas')
		return -1;
	var b = cv.getBoundingClientRect();
	var col = Number(cv.dataset.first) + Math.floor((ev.clientX - b.left) / L.cw);
	var row = Math.floor((ev.clientY - b.top) / L.ch);
	if (col < 0 || col >= T.columns || row < 0 || row >= T.rows)
		return -1;
	return col * T.rows + row;
}

// A cell's box in the window's coordinates (for tests and tools).
function cellBox(c) {
	var col = Math.floor(c / T.rows), row = c % T.rows;
	var cv = L.tiles[Math.floor(col / TILE)], b = cv.getBoundingClientRect();
	return { x: b.left + (col % TILE) * L.cw, y: b.top + row * L.ch, width: L.cw, height: L.ch };
}

function cellText(c) {
	var col = Math.floor(c / T.rows), row = c % T.rows;
	return col + ' s + ' + row * T.cellMs + ' ms: ' + counts[c].toLocaleString('en-US') +
		' ' + T.countname;
}

function onDown(ev) {
	var c = cellAt(ev);
	if (c < 0 || ev.button !== 0)
		return;
	ev.preventDefault();
	drag = ev.shiftKey && anchor >= 0 ? anchor : c;
	showSelection(Math.min(drag, c), Math.max(drag, c), false);
}

function onMove(ev) {
	var c = cellAt(ev);
	if (c < 0)
		return;
	setStatus(cellText(c));
	if (drag !== null && (!sel || Math.min(drag, c) !== sel.c0 || Math.max(drag, c) !== sel.c1))
		showSelection(Math.min(drag, c), Math.max(drag, c), false);
}

function onUp(ev) {
	if (drag === null)
		return;
	var c = cellAt(ev), from = drag;
	drag = null;
	if (c < 0)
		c = sel ? (sel.c0 === from ? sel.c1 : sel.c0) : from;
	anchor = from;
	select(Math.min(from, c), Math.max(from, c));
}

// Marks cells c0..c1; with `flame`, draws their flamegraph too.
function showSelection(c0, c1, flame) {
	var old = sel;
	sel = { c0: c0, c1: c1 };
	// only the tiles whose cells changed: a day is 22 canvases
	paint(old ? Math.min(old.c0, c0) : c0, old ? Math.max(old.c1, c1) : c1);
	if (flame) {
		zoom = 0;
		drawRange(c0, c1);
	}
}
