/* svg/js/60-menu.js: the frame menu: copying a frame's name or stack. Part
 * of one script: the files of svg/js/ are concatenated in order (00-page.js
 * opens the function they share). */

	/* ---- copy, the frame menu ---- */

	/* Frame i's names from the root's child up to it, as folded text
	 * writes a stack. */
	function stackOf(i) {
		var list = [];
		for (; i > 0; i = parent[i])
			list.push(names[i]);
		return list.reverse().join(';');
	}

	function copy(text, what) {
		copied = text;
		function byHand() {
			window.prompt('Copy the ' + what + ' (Ctrl-C):', text);
		}
		var done = function () {
			details.textContent = 'Copied the ' + what + ': ' + text;
		};
		if (navigator.clipboard && navigator.clipboard.writeText)
			navigator.clipboard.writeText(text).then(done, byHand);
		else
			byHand();
	}

	var MENU = [['copyname', 'Copy name'], ['copystack', 'Copy stack'],
		['sandwichopen', 'Sandwich view']];

	function closeMenu() {
		if (menuEl)
			menuEl.classList.add('hide');
		menuFrame = -1;
	}

	/* The menu of frame i at (x, y) in the root's px. */
	function openMenu(i, x, y) {
		var lh = Math.round(fontSize * 1.6), wide = 0, k;
		menuFrame = i;
		menuEl.textContent = '';
		var bg = doc.createElementNS(NS, 'rect');
		menuEl.appendChild(bg);
		for (k = 0; k < MENU.length; k++) {
			var t = doc.createElementNS(NS, 'text');
			t.setAttribute('id', MENU[k][0]);
			t.setAttribute('x', x + 8);
			t.setAttribute('y', y + lh * (k + 0.7));
			t.textContent = MENU[k][1];
			menuEl.appendChild(t);
			wide = Math.max(wide, MENU[k][1].length);
		}
		bg.setAttribute('x', x);
		bg.setAttribute('y', y);
		bg.setAttribute('width', wide * charPx + 16);
		bg.setAttribute('height', lh * MENU.length);
		menuEl.classList.remove('hide');
	}

	function menuAction(id, i) {
		if (id === 'copyname')
			copy(names[i], 'name');
		else if (id === 'copystack')
			copy(stackOf(i), 'stack');
		else if (id === 'sandwichopen')
			sandwich(names[i]);
	}

