/* svg/js/70-sandwich.js: the sandwich view: a function's callers and callees
 * over all its frames. Part of one script: the files of svg/js/ are
 * concatenated in order (00-page.js opens the function they share). */

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

