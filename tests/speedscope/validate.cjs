// validate.cjs: checks speedscope files against the schema speedscope
// publishes in its npm package (dist/release/file-format-schema.json), with
// ajv, then prints one line per profile: "NAME<TAB>SUM_OF_WEIGHTS<TAB>UNIT",
// and the folded stacks ("name;...;leaf WEIGHT") to the file given with
// --folded FILE. Exit 1 (with ajv's errors) when a file does not validate.
// Usage: node validate.cjs [--folded OUT] FILE
'use strict';
const fs = require('fs');
const path = require('path');
const Ajv = require('ajv');

const schema = require(path.join(__dirname,
	'node_modules/speedscope/dist/release/file-format-schema.json'));
const args = process.argv.slice(2);
let folded = null;
if (args[0] === '--folded') {
	folded = args[1];
	args.splice(0, 2);
}
const data = JSON.parse(fs.readFileSync(args[0], 'utf8'));
const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);
if (!validate(data)) {
	console.error(JSON.stringify(validate.errors, null, 1));
	process.exit(1);
}
const frames = data.shared.frames;
const lines = [];
for (const p of data.profiles) {
	let sum = 0;
	p.samples.forEach((stack, i) => {
		for (const f of stack)
			if (!Number.isInteger(f) || f < 0 || f >= frames.length)
				throw new Error(`${p.name}: frame index ${f} out of range`);
		sum += p.weights[i];
		lines.push(stack.map((f) => frames[f].name).join(';') + ' ' + p.weights[i]);
	});
	if (p.samples.length !== p.weights.length || sum !== p.endValue - p.startValue)
		throw new Error(`${p.name}: weights do not add up to endValue`);
	console.log(`${p.name}\t${sum}\t${p.unit}`);
}
if (folded)
	fs.writeFileSync(folded, lines.join('\n') + '\n');
