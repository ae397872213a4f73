/* svg/js/20-zoom.js: zoom: a frame fills the width, its subtree rescaled,
 * its callers greyed. Part of one script: the files of svg/js/ are
 * concatenated in order (00-page.js opens the function they share). */

	/* ---- zoom ----
	 *
	 * A few attributes per zoom, however many frames there are: the other
	 * frames are never touched, they fall outside the view of #frames and
	 * are clipped (hiding tens of thousands of elements would cost the
	 * browser hundreds of milliseconds of layout). Usually the viewBox of
	 * #frames becomes the zoomed frame's span and its ancestors' rects get
	 * that span too. Renderers map coordinates in single precision, which
	 * blurs the picture past a zoom factor of about a thousand; there (a
	 * small --minwidth) the frames in view get exact x and width instead,
	 * computed here in double precision and moved right by one whole
	 * width, and the viewBox shows that second width (class "exact").
	 */

	var VIEWBOX_ZOOM_MAX = 1000;

	function place(j, x, w) {
		rects[j].setAttribute('x', x);
		rects[j].setAttribute('width', w);
	}

	function zoom(i) {
		i = Number(i);
		if (!(i >= 0 && i < n) || i !== Math.floor(i))
			i = 0;
		var k, j;
		for (k = 0; k < shown.length; k++) {
			j = shown[k];
			cx[j] = x0[j];
			cw[j] = w0[j];
		}
		for (k = 0; k < moved.length; k++)
			place(moved[k], x0[moved[k]], w0[moved[k]]);
		moved = [];
		framesEl.classList.remove('exact');
		framesEl.setAttribute('viewBox', viewBox);
		els[zoomed].classList.remove('z');
		for (j = parent[zoomed]; j >= 0; j = parent[j])
			els[j].classList.remove('p');
		setCurrent(-1);
		shown = [];
		zoomed = i;
		if (i) {
			var zx = x0[i], zw = w0[i], scale = units / zw;
			for (j = parent[i]; j >= 0; j = parent[j]) {
				cx[j] = 0;
				cw[j] = units;
				shown.push(j);
				els[j].classList.add('p');
			}
			shown.reverse();
			var ancestors = shown.length;
			for (j = i; j < end[i]; j++) {
				cx[j] = (x0[j] - zx) * scale;
				cw[j] = w0[j] * scale;
				shown.push(j);
			}
			if (scale <= VIEWBOX_ZOOM_MAX) {
				framesEl.setAttribute('viewBox', zx + ' 0 ' + zw + ' ' + rows * fh);
				moved = shown.slice(0, ancestors);
				for (k = 0; k < ancestors; k++)
					place(shown[k], zx, zw);
			} else {
				framesEl.setAttribute('viewBox', units + ' 0 ' + units + ' ' + rows * fh);
				framesEl.classList.add('exact');
				moved = shown.slice();
				for (k = 0; k < shown.length; k++)
					place(shown[k], units + cx[shown[k]], cw[shown[k]]);
			}
			els[i].classList.add('z');
			framesEl.classList.add('zoomed');
			unzoomBtn.classList.remove('hide');
		} else {
			framesEl.classList.remove('zoomed');
			unzoomBtn.classList.add('hide');
		}
		relabel();
		updateMatched();
		save();
	}

	/* Is frame i in view: the zoomed frame, above it, or one of its callers? */
	function inView(i) {
		if (!zoomed)
			return i >= 0 && i < n;
		if (i >= zoomed && i < end[zoomed])
			return true;
		for (var j = parent[zoomed]; j >= 0; j = parent[j])
			if (j === i)
				return true;
		return false;
	}

