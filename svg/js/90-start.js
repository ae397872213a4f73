/* svg/js/90-start.js: start: reading the frames back from the DOM, events,
 * and the closing of the script. Part of one script: the files of svg/js/
 * are concatenated in order (00-page.js opens the function they share). */

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
