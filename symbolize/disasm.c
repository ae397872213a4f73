/* disasm.c: x86-64 disassembly of one function with capstone (see
 * function.h), printed the way objdump -d prints it, so that what
 * `prof annotate` shows reads like the objdump and perf annotate output
 * people know.
 *
 * capstone 4 writes every AT&T mnemonic with its size suffix ("movq %rdx,
 * %rax"); objdump writes the suffix only when no register operand implies
 * the size ("mov %rdx,%rax" but "movq $0x0,(%rax)") and never on call, ret,
 * jmp, push and pop. disasm_att_mnemonic() applies objdump's rule using
 * capstone's suffix-less instruction name. Over libc's .text this gives
 * objdump's mnemonic for all but ~0.3% of instructions (padding nops that
 * objdump names by their redundant prefixes, "cs nopw", "xchg %ax,%ax"). */
#include "symbolize/function.h"

#include <capstone/capstone.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/dynlib.h"
#include "lib/grow.h"

/* capstone, loaded by the first disassembly (lib/dynlib.h): the soname of
 * the API version the headers are (libcapstone.so.4 for capstone 4). */
#define CS_STR2(x) #x
#define CS_STR(x) CS_STR2(x)
#define CS_SONAME "libcapstone.so." CS_STR(CS_API_MAJOR)

static struct {
	cs_err (*open)(cs_arch, cs_mode, csh *);
	cs_err (*option)(csh, cs_opt_type, size_t);
	cs_insn *(*alloc)(csh);
	bool (*disasm_iter)(csh, const uint8_t **, size_t *, uint64_t *, cs_insn *);
	const char *(*insn_name)(csh, unsigned int);
	void (*free)(cs_insn *, size_t);
	cs_err (*close)(csh *);
} cs;

/* 0, or -1 (said on stderr) when capstone cannot be loaded. */
static int load_capstone(void)
{
	static const char *const names[] = {"cs_open",	    "cs_option",   "cs_malloc", "cs_disasm_iter",
					    "cs_insn_name", "cs_free",	   "cs_close"};
	static int state; /* 0 not tried, 1 loaded, -1 failed */
	void *fns[sizeof(names) / sizeof(names[0])];

	if (!state) {
		state = dynlib_load(CS_SONAME, "libcapstone4", names, fns,
				    sizeof(names) / sizeof(names[0]))
				? -1
				: 1;
		if (state > 0) {
			*(void **)&cs.open = fns[0];
			*(void **)&cs.option = fns[1];
			*(void **)&cs.alloc = fns[2];
			*(void **)&cs.disasm_iter = fns[3];
			*(void **)&cs.insn_name = fns[4];
			*(void **)&cs.free = fns[5];
			*(void **)&cs.close = fns[6];
		}
	}
	return state > 0 ? 0 : -1;
}

static int is_default_64(const char *base)
{
	return !strcmp(base, "call") || !strcmp(base, "ret") || !strcmp(base, "jmp") ||
	       !strcmp(base, "push") || !strcmp(base, "pop");
}

void disasm_att_mnemonic(const char *mnemonic, const char *base, int has_reg, char *out,
			 size_t len)
{
	const char *core = strrchr(mnemonic, ' '); /* after prefixes: "lock cmpxchgl" */
	size_t plen, clen, blen = base ? strlen(base) : 0;
	char last;

	core = core ? core + 1 : mnemonic;
	plen = (size_t)(core - mnemonic);
	clen = strlen(core);
	last = clen ? core[clen - 1] : '\0';
	snprintf(out, len, "%s", mnemonic);
	if (!base || clen != blen + 1 || strncmp(core, base, blen) || !strchr("bwlq", last))
		return;
	if ((last == 'q' && is_default_64(base)) || has_reg)
		snprintf(out, len, "%.*s%s", (int)plen, mnemonic, base);
}

/* Copies one number token of capstone's operands: hex as is; decimal, as
 * capstone writes values below 10 and displacements, in objdump's hex,
 * except a scale factor ("(%rax,%rbx,4)", "[rax+rbx*4]"). Returns the
 * number of input bytes used. */
static size_t copy_number(const char *p, int scale, char *out, size_t *o, size_t len)
{
	size_t i = 0;
	unsigned long long v = 0;
	int n;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		for (i = 0; i < 2 || isxdigit((unsigned char)p[i]); i++)
			if (*o + 1 < len)
				out[(*o)++] = p[i];
		return i;
	}
	while (isdigit((unsigned char)p[i]) && v < (1ull << 59))
		v = v * 10 + (unsigned)(p[i++] - '0');
	while (isdigit((unsigned char)p[i])) /* absurdly long: copy the rest */
		i++;
	n = snprintf(out + *o, len - *o, scale ? "%llu" : "0x%llx", v);
	if (n > 0)
		*o += (size_t)n < len - *o ? (size_t)n : len - *o - 1;
	return i;
}

/* Is the text at p a negative immediate: "$-N" (AT&T) or a bare "-N"
 * operand (Intel)? */
static int negative_imm(const char *in, const char *p, int intel)
{
	char prev = p > in ? p[-1] : '\0';

	if (p[0] != '-' || !isdigit((unsigned char)p[1]))
		return 0;
	return intel ? (prev == '\0' || prev == ' ' || prev == ',') : prev == '$';
}

/* capstone's operands in objdump's spelling: "," between operands (not
 * ", "), numbers in hex, negative immediates as the unsigned value of
 * their operand size (imm_size bytes), the scale factor 1 written out
 * ("(%rsi,%rcx,1)", "[rsi+rcx*1]"), no blanks around + and - in Intel
 * addresses, size keywords in capitals ("qword ptr" -> "QWORD PTR").
 * objdump still differs on padding nops (their zero displacement and
 * segment prefixes). */
static void format_operands(const char *in, int intel, unsigned imm_size, char *out, size_t len)
{
	size_t o = 0, terms = 0, commas = 0;
	int depth = 0;
	const char *p;

	for (p = in; *p && o + 8 < len;) {
		char prev = o ? out[o - 1] : '\0';

		if (p[0] == ',' && p[1] == ' ') {
			out[o++] = ',';
			commas += depth > 0;
			p += 2;
			continue;
		}
		if (intel && p[0] == ' ' && (p[1] == '+' || p[1] == '-' || p[1] == '*') &&
		    p[2] == ' ') {
			/* the second term of an address is the index: "*1" */
			if (depth && ++terms == 1 && p[1] == '+' && isalpha((unsigned char)p[3])) {
				const char *e = p + 3;

				while (isalnum((unsigned char)*e))
					e++;
				if (*e != ' ' || e[1] != '*') {
					out[o++] = '+';
					while (p + 3 < e && o + 4 < len) {
						out[o++] = p[3];
						p++;
					}
					out[o++] = '*';
					out[o++] = '1';
					p += 3;
					continue;
				}
			}
			out[o++] = p[1];
			p += 3;
			continue;
		}
		if (negative_imm(in, p, intel) && !depth && imm_size && imm_size <= 8) {
			unsigned long long v = 0, mask;
			size_t used;
			char num[32] = "";

			used = copy_number(p + 1, 1, num, &(size_t){0}, sizeof(num));
			v = strtoull(num, NULL, 0);
			mask = imm_size == 8 ? ~0ull : (1ull << (8 * imm_size)) - 1;
			o += (size_t)snprintf(out + o, len - o, "0x%llx", (0 - v) & mask);
			p += 1 + used;
			continue;
		}
		if (isdigit((unsigned char)*p) && !isalnum((unsigned char)prev) && prev != '_' &&
		    prev != '%') {
			int scale = intel ? prev == '*' : depth && prev == ',' && commas == 2;

			p += copy_number(p, scale, out, &o, len);
			continue;
		}
		if (*p == '(' || *p == '[') {
			depth++;
			terms = commas = 0;
		} else if ((*p == ')' || *p == ']') && depth) {
			if (!intel && commas == 1 && o + 3 < len) {
				out[o++] = ',';
				out[o++] = '1';
			}
			depth--;
		}
		out[o++] = *p++;
	}
	out[o] = '\0';
	if (!intel)
		return;
	for (p = strstr(out, " ptr "); p; p = strstr(p + 1, " ptr ")) {
		char *w = out + (p - out);
		char *s = w;

		while (s > out && isalpha((unsigned char)s[-1]))
			s--;
		for (; s < w + 4; s++)
			*s = (char)toupper((unsigned char)*s);
	}
}

/* The size in bytes of the instruction's immediate operand, 0 if none. */
static unsigned imm_size(const cs_insn *in)
{
	int i;

	if (!in->detail)
		return 0;
	for (i = 0; i < in->detail->x86.op_count; i++)
		if (in->detail->x86.operands[i].type == X86_OP_IMM)
			return in->detail->x86.operands[i].size;
	return 0;
}

/* Fills the branch target of a direct jump or call. */
static void branch_target(const cs_insn *in, struct disasm_insn *d)
{
	const cs_detail *det = in->detail;
	int i, jump = 0;

	if (!det)
		return;
	for (i = 0; i < det->groups_count; i++)
		if (det->groups[i] == X86_GRP_JUMP || det->groups[i] == X86_GRP_CALL)
			jump = 1;
	if (!jump || det->x86.op_count != 1 || det->x86.operands[0].type != X86_OP_IMM)
		return;
	d->branch = 1;
	d->target = (uint64_t)det->x86.operands[0].imm;
	/* objdump shows the bare address: "jne 1348 <f+0x18>" */
	snprintf(d->operands, sizeof(d->operands), "%llx", (unsigned long long)d->target);
}

static int has_reg_operand(const cs_insn *in)
{
	int i;

	if (!in->detail)
		return 0;
	for (i = 0; i < in->detail->x86.op_count; i++)
		if (in->detail->x86.operands[i].type == X86_OP_REG)
			return 1;
	return 0;
}

int disasm_function(const unsigned char *code, size_t size, uint64_t vaddr,
		    enum disasm_syntax syntax, struct disasm_insn **out, size_t *n)
{
	struct disasm_insn *v = NULL;
	size_t nv = 0, cap = 0;
	cs_insn *in = NULL;
	csh h;
	int err = 0;

	*out = NULL;
	*n = 0;
	if (load_capstone() || cs.open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
		return -ENOTSUP;
	cs.option(h, CS_OPT_SYNTAX, syntax == DISASM_INTEL ? CS_OPT_SYNTAX_INTEL : CS_OPT_SYNTAX_ATT);
	cs.option(h, CS_OPT_DETAIL, CS_OPT_ON);
	in = cs.alloc(h);
	if (!in) {
		err = -ENOMEM;
		goto out;
	}
	while (size) {
		const uint8_t *p = code;
		size_t left = size;
		uint64_t a = vaddr;
		struct disasm_insn *d;

		if (GROW(v, cap, nv + 1)) {
			err = -ENOMEM;
			goto out;
		}
		d = &v[nv++];
		memset(d, 0, sizeof(*d));
		d->addr = vaddr;
		if (!cs.disasm_iter(h, &p, &left, &a, in)) {
			/* Not an instruction (data in text, a cut-off tail):
			 * one byte, as objdump's "(bad)", and go on. */
			d->size = 1;
			snprintf(d->mnemonic, sizeof(d->mnemonic), "(bad)");
		} else {
			d->valid = 1;
			d->size = in->size;
			if (syntax == DISASM_ATT)
				disasm_att_mnemonic(in->mnemonic, cs.insn_name(h, in->id),
						    has_reg_operand(in), d->mnemonic,
						    sizeof(d->mnemonic));
			else
				snprintf(d->mnemonic, sizeof(d->mnemonic), "%s", in->mnemonic);
			format_operands(in->op_str, syntax == DISASM_INTEL, imm_size(in), d->operands,
					sizeof(d->operands));
			branch_target(in, d);
		}
		code += d->size;
		size -= d->size;
		vaddr += d->size;
	}
	*out = v;
	*n = nv;
	v = NULL;
out:
	free(v);
	if (in)
		cs.free(in, 1);
	cs.close(&h);
	return err;
}
