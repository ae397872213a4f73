/* svg/js/10-labels.js: frame labels: fitting names into frames, relabelling
 * after a zoom or resize. Part of one script: the files of svg/js/ are
 * concatenated in order (00-page.js opens the function they share). */

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

