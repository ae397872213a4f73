# embed-js.awk: turns the page script (svg/js/*.js, concatenated) into a C
# string (the Makefile runs
# it), smaller on the way: indentation, empty lines, and comments on lines
# of their own are dropped (every SVG carries the script). Backslashes,
# quotes and '?' (no trigraphs) are escaped; one literal per line.
# -v name=C_NAME (default svg_flamegraph_js) names the string.
BEGIN {
	if (name == "")
		name = "svg_flamegraph_js"
	print "/* generated from the files of svg/js/ by svg/embed-js.awk: do not edit */"
	print "extern const char " name "[];"
	print "const char " name "[] ="
}
{ sub(/^[ \t]+/, "") }
incomment { if (index($0, "*/")) incomment = 0; next }
/^\/\*/ { if (!index($0, "*/")) incomment = 1; next }
/^\/\// || /^$/ { next }
{
	out = ""
	for (i = 1; i <= length($0); i++) {
		c = substr($0, i, 1)
		out = out (c == "\\" || c == "\"" || c == "?" ? "\\" : "") c
	}
	print "\"" out "\\n\""
}
END { print ";" }
