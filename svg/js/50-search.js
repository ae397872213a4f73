/* svg/js/50-search.js: search: Matched, the match list, stepping through
 * matches. Part of one script: the files of svg/js/ are concatenated in
 * order (00-page.js opens the function they share). */

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

