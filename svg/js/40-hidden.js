/* svg/js/40-hidden.js: frames too narrow to draw: the table svg/hidden.c
 * writes, read on the first search. Part of one script: the files of svg/js/
 * are concatenated in order (00-page.js opens the function they share). */

	/* ---- hidden frames ---- */

	var VLQ = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

	/* The table of svg/hidden.c as arrays; null when nothing is hidden. */
	function readHidden() {
		var namesEl = doc.getElementById('hidden-names');
		var framesEl2 = doc.getElementById('hidden-frames');
		if (!namesEl || !framesEl2)
			return null;
		var table = namesEl.textContent.split('\n');
		var s = framesEl2.textContent, pos = 0;
		var scale = Math.pow(10, Number(attr(framesEl2, 'data-decimals')) || 0);
		var digit = new Int8Array(128).fill(-1);
		for (var k = 0; k < VLQ.length; k++)
			digit[VLQ.charCodeAt(k)] = k;
		function num() {
			var v = 0, mul = 1, d;
			do {
				var c = s.charCodeAt(pos++);
				d = c < 128 ? digit[c] : -1;
				if (d < 0 || pos > s.length)
					throw new Error('bad hidden-frames table');
				v += (d & 31) * mul;
				mul *= 32;
			} while (d & 32);
			return v;
		}
		var count = [], end = [], nameAt = [], nameList = [];
		var first = new Int32Array(n), last = new Int32Array(n), open = [];
		var frame = 0;
		while (pos < s.length) {
			frame += num();
			if (frame >= n)
				throw new Error('bad hidden-frames table');
			first[frame] = count.length;
			for (var t = num(); t; t = num()) {
				if (t % 2) {
					nameList.push((t - 1) / 2); /* an only child, same count */
					continue;
				}
				for (var up = t / 2 - 1; up > 0 && open.length; up--)
					end[open.pop()] = count.length;
				open.push(count.length);
				nameAt.push(nameList.length);
				nameList.push(num());
				count.push(num() / scale);
				end.push(0);
			}
			while (open.length)
				end[open.pop()] = count.length;
			last[frame] = count.length;
		}
		nameAt.push(nameList.length);
		return {table: table, count: count, end: end, nameAt: nameAt, names: nameList,
			first: first, last: last};
	}

	/* Per drawn frame, the samples of the outermost matching hidden frames
	 * above it, with matcher M; false when the search stopped. */
	function loadHidden() {
		if (hidden === null) {
			try {
				hidden = readHidden() || false;
			} catch (err) {
				hidden = false;
			}
		}
		return hidden;
	}

	function hiddenMatches(m) {
		loadHidden();
		var sums = new Float64Array(n);
		if (!hidden)
			return sums;
		var h = hidden, hit = hiddenHit = new Int8Array(h.table.length).fill(-1);
		for (var i = 0; i < n; i++) {
			for (var k = h.first[i]; k < h.last[i];) {
				var yes = false;
				for (var q = h.nameAt[k]; q < h.nameAt[k + 1] && !yes; q++) {
					var line = h.names[q];
					if (hit[line] < 0) {
						var r = m.test(h.table[line]);
						if (r === null)
							return false;
						hit[line] = r ? 1 : 0;
					}
					yes = hit[line] === 1;
				}
				if (yes) {
					sums[i] += h.count[k];
					k = h.end[k];
				} else {
					k++;
				}
			}
		}
		return sums;
	}

