// 20-flame.js: the flamegraph of a selected range, below the heatmap:
// per frame its samples in the range (rangeTotals), laid out as
// flamegraph.pl does (siblings by name, as the table lists them; the root
// at the bottom; frames under 0.1 px left out with what is above them),
// at most MAX_DRAWN frames. Hover shows a frame's name and count; a click
// zooms into a frame (its callers stay below it, full width, greyed), a
// click on one of them or on "all" zooms back out.
var FH = 16, MAX_DRAWN = 20000;
var zoom = 0;     // the zoomed frame (0: the root, not zoomed)
var drawn = [];   // the frames drawn: {i, name, count, depth}
var lastTotals = null;

function setStatus(s) {
	byId('details').textContent = s;
}

function hash(s) {
	var h = 2166136261;
	for (var i = 0; i < s.length; i++)
		h = Math.imul(h ^ s.charCodeAt(i), 16777619);
	return h >>> 0;
}

function frameColor(name) {
	var h = hash(name.replace(/_\[[kji]\]$/, ''));
	return 'rgb(' + (205 + h % 50) + ',' + ((h >> 8) % 230) + ',' + ((h >> 16) % 55) + ')';
}

function fmt(n) { return n.toLocaleString('en-US'); }

function msText(ms) {
	return (ms / 1000).toFixed(3).replace(/\.?0+$/, '') + ' s';
}

function drawRange(c0, c1) {
	var svg = byId('flame'), width = L.width - 2 * MARGIN;
	var g0 = Math.floor(c0 / T.group) * T.group;
	var g1 = Math.min(NCELLS, (Math.floor(c1 / T.group) + 1) * T.group) - 1;
	var tot = rangeTotals(c0, c1), all = tot[0];
	lastTotals = tot;
	while (svg.firstChild)
		svg.removeChild(svg.firstChild);
	drawn = [];
	var head = byId('flametitle');
	var what = 'Flamegraph of ' + msText(g0 * T.cellMs) + ' to ' + msText((g1 + 1) * T.cellMs) +
		': ' + fmt(all) + ' ' + T.countname + ' (' +
		(T.total ? (100 * all / T.total).toFixed(2) : '0.00') + '% of all)';
	if (T.group > 1)
		what += ', stacks kept per ' + msText(T.group * T.cellMs) + ' in this page';
	head.textContent = what;
	if (!all) {
		svg.setAttribute('height', 0);
		return layoutPage();
	}
	if (!tot[zoom])
		zoom = 0;
	var zt = tot[zoom], minTot = zt * 0.1 / width, x = new Float64Array(T.nframes);
	var next = new Float64Array(T.nframes), on = new Uint8Array(T.nframes), maxDepth = 0;
	var anc = new Uint8Array(T.nframes), inside = new Uint8Array(T.nframes);
	for (var a = zoom; a >= 0; a = parent[a])
		anc[a] = 1;
	inside[zoom] = 1;
	for (var i = 0; i < T.nframes && drawn.length < MAX_DRAWN; i++) {
		if (i) {
			var p = parent[i];
			if (!tot[i])
				continue;
			x[i] = next[p];
			next[p] += tot[i];
			inside[i] = inside[i] || inside[p];
		}
		next[i] = x[i];
		if (!(anc[i] || inside[i]) || (i && !on[parent[i]]) || tot[i] < minTot)
			continue;
		on[i] = 1;
		drawn.push({ i: i, name: nameOf[i], count: tot[i], depth: depth[i], caller: anc[i] && i !== zoom });
		if (depth[i] > maxDepth)
			maxDepth = depth[i];
	}
	var frag = document.createDocumentFragment(), scale = width / zt;
	for (var k = 0; k < drawn.length; k++) {
		var f = drawn[k], w = f.caller ? width : tot[f.i] * scale;
		var fx = f.caller ? 0 : (x[f.i] - x[zoom]) * scale;
		var g = document.createElementNS(SVGNS, 'g');
		var t = document.createElementNS(SVGNS, 'title');
		t.textContent = f.name + ' (' + fmt(f.count) + ' ' + T.countname + ', ' +
			(100 * f.count / all).toFixed(2) + '%)';
		g.appendChild(t);
		var r = document.createElementNS(SVGNS, 'rect');
		r.setAttribute('x', fx.toFixed(2));
		r.setAttribute('y', (maxDepth - f.depth) * FH);
		r.setAttribute('width', w.toFixed(2));
		r.setAttribute('height', FH - 1);
		r.setAttribute('fill', f.i ? frameColor(f.name) : 'rgb(230,120,60)');
		if (f.caller)
			r.setAttribute('opacity', '0.5');
		g.appendChild(r);
		var chars = Math.floor((w - 6) / 6.5);
		if (chars >= 3) {
			var tx = document.createElementNS(SVGNS, 'text');
			tx.setAttribute('x', (fx + 3).toFixed(2));
			tx.setAttribute('y', (maxDepth - f.depth) * FH + FH - 4);
			tx.textContent = f.name.length > chars ? f.name.slice(0, chars - 2) + '..' : f.name;
			g.appendChild(tx);
		}
		g.setAttribute('data-i', f.i);
		frag.appendChild(g);
	}
	svg.appendChild(frag);
	svg.setAttribute('height', (maxDepth + 1) * FH);
	layoutPage();
}

function onFlameHover(ev) {
	var g = ev.target.closest ? ev.target.closest('g[data-i]') : null;
	if (!g || !lastTotals)
		return;
	var i = Number(g.getAttribute('data-i'));
	setStatus(nameOf[i] + ' (' + fmt(lastTotals[i]) + ' ' + T.countname + ', ' +
		(100 * lastTotals[i] / lastTotals[0]).toFixed(2) + '%)');
}

function onFlameClick(ev) {
	var g = ev.target.closest ? ev.target.closest('g[data-i]') : null;
	if (!g || !sel)
		return;
	zoomTo(Number(g.getAttribute('data-i')));
}

// Zooms the flamegraph into frame i (0: out).
function zoomTo(i) {
	zoom = i === zoom ? parent[i] < 0 ? 0 : parent[i] : i;
	if (sel)
		drawRange(sel.c0, sel.c1);
}
