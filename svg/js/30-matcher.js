/* svg/js/30-matcher.js: the search's regex matcher, linear in time (never
 * RegExp: a crafted link could make it backtrack for hours). Part of one
 * script: the files of svg/js/ are concatenated in order (00-page.js opens
 * the function they share). */

	/* ---- search: a regex matcher in linear time ----
	 *
	 * The search comes from the URL too, so a link can carry any pattern,
	 * and RegExp backtracks: ^(A+)+$ on a name of 40 A's runs for minutes
	 * and nothing can interrupt it. So RegExp only checks the syntax (it
	 * compiles in linear time, and its message is the one people know);
	 * the page then compiles the pattern itself into a Thompson NFA (a
	 * program of the instructions below) and runs every thread of it in
	 * step over a name, once per character: the work per name is at most
	 * the program's length times the name's, and SEARCH_WORK bounds a
	 * whole search. Supported: JavaScript's syntax without the u flag
	 * (literals, escapes, ., classes, ^ $ \b \B, groups, |, quantifiers,
	 * lazy or not) and the i flag; refused with a message: backreferences,
	 * lookaround, and repeats that would make the program too long. */

	var PROG_MAX = 10000; /* instructions of a compiled search */
	var REPEAT_MAX = 1000; /* the largest n or m of {n,m} */
	var NEST_MAX = 100; /* groups inside groups */
	var SEARCH_WORK = 1e8; /* thread steps of one search, all names together */
	var OP_SET = 0, OP_SPLIT = 1, OP_JMP = 2, OP_ASSERT = 3, OP_MATCH = 4;

	function Unsupported(message) {
		this.message = message;
	}

	function isWord(c) {
		return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
	}

	function isDigit(c) {
		return c >= 48 && c <= 57;
	}

	function isSpace(c) {
		return (c >= 9 && c <= 13) || c === 32 || c === 0xa0 || c === 0x1680 ||
			(c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f ||
			c === 0x205f || c === 0x3000 || c === 0xfeff;
	}

	function isLineEnd(c) {
		return c === 10 || c === 13 || c === 0x2028 || c === 0x2029;
	}

	/* The i flag's Canonicalize() without u: the upper case when it is one
	 * code unit and does not take a non-ASCII character to ASCII. */
	var canonCache = new Int32Array(65536).fill(-1);

	function canon(c) {
		var k = canonCache[c];
		if (k < 0) {
			var u = String.fromCharCode(c).toUpperCase();
			k = u.length === 1 && !(c >= 128 && u.charCodeAt(0) < 128) ? u.charCodeAt(0) : c;
			canonCache[c] = k;
		}
		return k;
	}

	/* A class under i matches c when one of its members has c's canonical
	 * form: c itself, that form, or the lower case of either. */
	function foldClass(f) {
		return function (c) {
			if (f(c))
				return true;
			var k = canon(c);
			if (f(k))
				return true;
			var l = String.fromCharCode(c).toLowerCase();
			if (l.length === 1 && canon(l.charCodeAt(0)) === k && f(l.charCodeAt(0)))
				return true;
			l = String.fromCharCode(k).toLowerCase();
			return l.length === 1 && canon(l.charCodeAt(0)) === k && f(l.charCodeAt(0));
		};
	}

	var ESCAPE_SETS = {
		d: isDigit,
		D: function (c) { return !isDigit(c); },
		w: isWord,
		W: function (c) { return !isWord(c); },
		s: isSpace,
		S: function (c) { return !isSpace(c); }
	};
	var ESCAPE_CODES = {t: 9, n: 10, v: 11, f: 12, r: 13};

	/* The pattern SRC (valid for RegExp) as a tree: {t: 'set', f},
	 * {t: 'cat', a}, {t: 'alt', a}, {t: 'rep', n, min, max (-1: no
	 * bound)}, {t: 'assert', k: '^' '$' 'b' 'B'}. Throws Unsupported. */
	function parsePattern(src, icase) {
		var pos = 0;
		var named = /\(\?<[^=!]/.test(src);

		function peek() {
			return src.charAt(pos);
		}

		function literal(code) {
			if (!icase)
				return {t: 'set', f: function (c) { return c === code; }};
			var k = canon(code);
			return {t: 'set', f: function (c) { return canon(c) === k; }};
		}

		function hex(n) {
			var m = new RegExp('^[0-9a-fA-F]{' + n + '}').exec(src.slice(pos));
			if (!m)
				return -1;
			pos += n;
			return parseInt(m[0], 16);
		}

		/* After a backslash: an escape that stands for one character. */
		function charEscape(e) {
			if (ESCAPE_CODES[e] !== undefined)
				return ESCAPE_CODES[e];
			if (e === 'x' || e === 'u') {
				var v = hex(e === 'x' ? 2 : 4);
				return v >= 0 ? v : e.charCodeAt(0);
			}
			if (e === 'c') {
				var l = src.charCodeAt(pos);
				if ((l >= 65 && l <= 90) || (l >= 97 && l <= 122)) {
					pos++;
					return l % 32;
				}
				throw new Unsupported('\\c without a letter');
			}
			if (e === '0' && !isDigit(src.charCodeAt(pos)))
				return 0;
			if (isDigit(e.charCodeAt(0)))
				throw new Unsupported('backreferences and octal escapes (\\' + e + ')');
			if (e === 'k' && named)
				throw new Unsupported('backreferences (\\k)');
			return e.charCodeAt(0);
		}

		function classAtom() {
			var c = src.charAt(pos++);
			if (c !== '\\')
				return {code: c.charCodeAt(0)};
			var e = src.charAt(pos++);
			if (ESCAPE_SETS[e])
				return {f: ESCAPE_SETS[e]};
			if (e === 'b')
				return {code: 8};
			return {code: charEscape(e)};
		}

		function charClass() {
			var negate = peek() === '^', ranges = [], sets = [];
			if (negate)
				pos++;
			while (peek() !== ']') {
				if (pos >= src.length)
					throw new Unsupported('an unterminated class');
				var a = classAtom();
				if (peek() === '-' && pos + 1 < src.length && src.charAt(pos + 1) !== ']') {
					pos++;
					var b = classAtom();
					if (a.f || b.f) {
						/* [\d-z]: no range, a '-' among the rest */
						[a, {code: 45}, b].forEach(function (x) {
							if (x.f)
								sets.push(x.f);
							else
								ranges.push(x.code, x.code);
						});
					} else {
						ranges.push(a.code, b.code);
					}
				} else if (a.f) {
					sets.push(a.f);
				} else {
					ranges.push(a.code, a.code);
				}
			}
			pos++;
			var f = function (c) {
				for (var k = 0; k < ranges.length; k += 2)
					if (c >= ranges[k] && c <= ranges[k + 1])
						return true;
				for (k = 0; k < sets.length; k++)
					if (sets[k](c))
						return true;
				return false;
			};
			var g = icase ? foldClass(f) : f;
			return {t: 'set', f: negate ? function (c) { return !g(c); } : g};
		}

		function atomEscape() {
			var e = src.charAt(pos++);
			if (ESCAPE_SETS[e])
				return {t: 'set', f: ESCAPE_SETS[e]};
			if (e === 'b' || e === 'B')
				return {t: 'assert', k: e};
			return literal(charEscape(e));
		}

		function group(depth) {
			if (src.charAt(pos) === '?') {
				var kind = src.charAt(pos + 1);
				if (kind === ':') {
					pos += 2;
				} else if (kind === '<' && src.charAt(pos + 2) !== '=' &&
					   src.charAt(pos + 2) !== '!') {
					pos = src.indexOf('>', pos) + 1; /* a named group */
				} else {
					throw new Unsupported(kind === '=' || kind === '!' || kind === '<'
						? 'lookaround ((?=, (?!, (?<=, (?<!)'
						: 'group modifiers ((?' + kind + ')');
				}
			}
			var inner = alternation(depth + 1);
			if (peek() !== ')')
				throw new Unsupported('an unbalanced group');
			pos++;
			return inner;
		}

		function term(depth) {
			var c = src.charAt(pos++);
			if (c === '^' || c === '$')
				return {t: 'assert', k: c};
			if (c === '.')
				return {t: 'set', f: function (x) { return !isLineEnd(x); }};
			if (c === '[')
				return charClass();
			if (c === '(')
				return group(depth);
			if (c === '\\')
				return atomEscape();
			return literal(c.charCodeAt(0));
		}

		function quantified(atom) {
			var c = peek(), min, max, m;
			if (c === '*' || c === '+' || c === '?') {
				pos++;
				min = c === '+' ? 1 : 0;
				max = c === '?' ? 1 : -1;
			} else if (c === '{' && (m = /^\{(\d+)(,(\d*))?\}/.exec(src.slice(pos)))) {
				pos += m[0].length;
				min = Number(m[1]);
				max = m[2] === undefined ? min : m[3] === '' ? -1 : Number(m[3]);
			} else {
				return atom;
			}
			if (peek() === '?')
				pos++; /* lazy: the same for a yes-or-no match */
			if (min > REPEAT_MAX || max > REPEAT_MAX)
				throw new Unsupported('a repeat count above ' + REPEAT_MAX);
			return {t: 'rep', n: atom, min: min, max: max};
		}

		function sequence(depth) {
			var items = [];
			while (pos < src.length && peek() !== '|' && peek() !== ')')
				items.push(quantified(term(depth)));
			return {t: 'cat', a: items};
		}

		function alternation(depth) {
			if (depth > NEST_MAX)
				throw new Unsupported('groups nested more than ' + NEST_MAX + ' deep');
			var alts = [sequence(depth)];
			while (peek() === '|') {
				pos++;
				alts.push(sequence(depth));
			}
			return alts.length === 1 ? alts[0] : {t: 'alt', a: alts};
		}

		var tree = alternation(0);
		if (pos < src.length)
			throw new Unsupported('an unbalanced group');
		return tree;
	}

	/* The tree as a program: parallel arrays op, f (a set's test), x and y
	 * (jump targets; an assertion's kind in x). Ends with OP_MATCH. */
	function compile(tree) {
		var op = [], f = [], x = [], y = [];

		function emit(o, fn, a, b) {
			if (op.length >= PROG_MAX)
				throw new Unsupported('a pattern that expands to more than ' + PROG_MAX +
					' steps');
			op.push(o);
			f.push(fn);
			x.push(a);
			y.push(b);
			return op.length - 1;
		}

		function gen(node) {
			var k, at, fix = [];
			if (node.t === 'set') {
				emit(OP_SET, node.f, 0, 0);
			} else if (node.t === 'assert') {
				emit(OP_ASSERT, null, node.k, 0);
			} else if (node.t === 'cat') {
				for (k = 0; k < node.a.length; k++)
					gen(node.a[k]);
			} else if (node.t === 'alt') {
				for (k = 0; k < node.a.length - 1; k++) {
					at = emit(OP_SPLIT, null, op.length + 1, 0);
					gen(node.a[k]);
					fix.push(emit(OP_JMP, null, 0, 0));
					y[at] = op.length;
				}
				gen(node.a[k]);
				for (k = 0; k < fix.length; k++)
					x[fix[k]] = op.length;
			} else {
				for (k = 0; k < node.min; k++)
					gen(node.n);
				if (node.max < 0) {
					at = emit(OP_SPLIT, null, op.length + 1, 0);
					gen(node.n);
					emit(OP_JMP, null, at, 0);
					y[at] = op.length;
				} else {
					for (k = node.min; k < node.max; k++) {
						fix.push(emit(OP_SPLIT, null, op.length + 1, 0));
						gen(node.n);
					}
					for (k = 0; k < fix.length; k++)
						y[fix[k]] = op.length;
				}
			}
		}

		gen(tree);
		emit(OP_MATCH, null, 0, 0);
		return {op: Uint8Array.from(op), f: f, x: x, y: y};
	}

	/* A matcher for SRC: {test(name), work} or {error}. test() returns
	 * whether the pattern matches anywhere in name, or null once the
	 * search's work is past SEARCH_WORK. */
	function matcher(src, icase) {
		var p;
		try {
			p = compile(parsePattern(src, icase));
		} catch (err) {
			if (err instanceof Unsupported)
				return {error: err.message};
			return {error: 'a pattern too complex to search (' + err.message + ')'};
		}
		var n = p.op.length, op = p.op, f = p.f, x = p.x, y = p.y;
		var cur = new Int32Array(n), next = new Int32Array(n), stack = new Int32Array(2 * n + 2);
		var mark = new Float64Array(n), stamp = 0, ncur = 0, nnext = 0;
		var m = {work: 0};

		function holds(k, s, i) {
			if (k === '^')
				return i === 0;
			if (k === '$')
				return i === s.length;
			var before = i > 0 && isWord(s.charCodeAt(i - 1));
			var after = i < s.length && isWord(s.charCodeAt(i));
			return (before !== after) === (k === 'b');
		}

		/* Adds the threads that pc leads to at position i of s, without
		 * reading a character, to next. True when one of them matches. */
		function add(pc, s, i) {
			var sp = 0;
			stack[sp++] = pc;
			while (sp) {
				pc = stack[--sp];
				if (mark[pc] === stamp)
					continue;
				mark[pc] = stamp;
				m.work++;
				switch (op[pc]) {
				case OP_SET:
					next[nnext++] = pc;
					break;
				case OP_MATCH:
					return true;
				case OP_JMP:
					stack[sp++] = x[pc];
					break;
				case OP_SPLIT:
					stack[sp++] = y[pc];
					stack[sp++] = x[pc];
					break;
				default:
					if (holds(x[pc], s, i))
						stack[sp++] = pc + 1;
				}
			}
			return false;
		}

		m.test = function (s) {
			if (m.work > SEARCH_WORK)
				return null;
			stamp++;
			nnext = 0;
			if (add(0, s, 0))
				return true;
			for (var i = 0; i < s.length; i++) {
				var t = cur;
				cur = next;
				next = t;
				ncur = nnext;
				nnext = 0;
				stamp++;
				var c = s.charCodeAt(i);
				for (var k = 0; k < ncur; k++)
					if (f[cur[k]](c) && add(cur[k] + 1, s, i + 1))
						return true;
				/* unanchored: a new try starts at every position */
				if (add(0, s, i + 1))
					return true;
				if (m.work > SEARCH_WORK)
					return null;
			}
			return false;
		};
		return m;
	}

