/* svg/js/80-url.js: the view in the URL fragment: saved on every change,
 * restored on load and hashchange. Part of one script: the files of svg/js/
 * are concatenated in order (00-page.js opens the function they share). */

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

