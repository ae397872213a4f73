/* usdt-args.c: the x86-64 argument specs of USDT probes (see usdt.h):
 * "SIZE@OPERAND" per argument, space-separated, SIZE one of 1, 2, 4, 8,
 * negative for signed values; operands are GNU assembler ones: %reg, $imm,
 * disp(%base), disp(%base,%index,scale). Symbol-relative operands
 * ("8@counter(%rip)") would need the binary's symbols at decode time and
 * are refused with a clear reason, as are other registers (%xmm0, ...).
 * The input is untrusted (it comes from a binary's notes): every character
 * is checked, nothing is allocated. */
#include "usdt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct reg_name {
	const char *name;
	uint8_t reg, size, shift;
};

static const struct reg_name regs[] = {
	{"rax", USDT_REG_AX, 8, 0}, {"eax", USDT_REG_AX, 4, 0}, {"ax", USDT_REG_AX, 2, 0},
	{"al", USDT_REG_AX, 1, 0},  {"ah", USDT_REG_AX, 1, 8},
	{"rbx", USDT_REG_BX, 8, 0}, {"ebx", USDT_REG_BX, 4, 0}, {"bx", USDT_REG_BX, 2, 0},
	{"bl", USDT_REG_BX, 1, 0},  {"bh", USDT_REG_BX, 1, 8},
	{"rcx", USDT_REG_CX, 8, 0}, {"ecx", USDT_REG_CX, 4, 0}, {"cx", USDT_REG_CX, 2, 0},
	{"cl", USDT_REG_CX, 1, 0},  {"ch", USDT_REG_CX, 1, 8},
	{"rdx", USDT_REG_DX, 8, 0}, {"edx", USDT_REG_DX, 4, 0}, {"dx", USDT_REG_DX, 2, 0},
	{"dl", USDT_REG_DX, 1, 0},  {"dh", USDT_REG_DX, 1, 8},
	{"rsi", USDT_REG_SI, 8, 0}, {"esi", USDT_REG_SI, 4, 0}, {"si", USDT_REG_SI, 2, 0},
	{"sil", USDT_REG_SI, 1, 0},
	{"rdi", USDT_REG_DI, 8, 0}, {"edi", USDT_REG_DI, 4, 0}, {"di", USDT_REG_DI, 2, 0},
	{"dil", USDT_REG_DI, 1, 0},
	{"rbp", USDT_REG_BP, 8, 0}, {"ebp", USDT_REG_BP, 4, 0}, {"bp", USDT_REG_BP, 2, 0},
	{"bpl", USDT_REG_BP, 1, 0},
	{"rsp", USDT_REG_SP, 8, 0}, {"esp", USDT_REG_SP, 4, 0}, {"sp", USDT_REG_SP, 2, 0},
	{"spl", USDT_REG_SP, 1, 0},
	{"rip", USDT_REG_IP, 8, 0},
};

static const char *const r64[] = {
	[USDT_REG_AX] = "rax", [USDT_REG_BX] = "rbx", [USDT_REG_CX] = "rcx",
	[USDT_REG_DX] = "rdx", [USDT_REG_SI] = "rsi", [USDT_REG_DI] = "rdi",
	[USDT_REG_BP] = "rbp", [USDT_REG_SP] = "rsp", [USDT_REG_IP] = "rip",
	[USDT_REG_R8] = "r8", [USDT_REG_R9] = "r9", [USDT_REG_R10] = "r10",
	[USDT_REG_R11] = "r11", [USDT_REG_R12] = "r12", [USDT_REG_R13] = "r13",
	[USDT_REG_R14] = "r14", [USDT_REG_R15] = "r15",
};

const char *usdt_reg_name(unsigned r)
{
	return r < sizeof(r64) / sizeof(r64[0]) && r64[r] ? r64[r] : "?";
}

/* "%name" at *p (p past the '%'): the register, its width and shift. */
static int parse_reg(const char **pp, uint8_t *reg, uint8_t *size, uint8_t *shift)
{
	const char *p = *pp;
	size_t len = 0, i;

	while ((p[len] >= 'a' && p[len] <= 'z') || (p[len] >= '0' && p[len] <= '9'))
		len++;
	if (!len || len > 4)
		return -EINVAL;
	/* r8 .. r15, with suffixes d, w, b */
	if (p[0] == 'r' && p[1] >= '0' && p[1] <= '9') {
		char *end;
		long n = strtol(p + 1, &end, 10);
		size_t rest = len - (size_t)(end - p);

		if (n < 8 || n > 15 || rest > 1)
			return -EINVAL;
		*reg = (uint8_t)(USDT_REG_R8 + (n - 8));
		*shift = 0;
		*size = 8;
		if (rest == 1) {
			if (*end == 'd')
				*size = 4;
			else if (*end == 'w')
				*size = 2;
			else if (*end == 'b' || *end == 'l')
				*size = 1;
			else
				return -EINVAL;
		}
		*pp = p + len;
		return 0;
	}
	for (i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
		if (strlen(regs[i].name) == len && !memcmp(regs[i].name, p, len)) {
			*reg = regs[i].reg;
			*size = regs[i].size;
			*shift = regs[i].shift;
			*pp = p + len;
			return 0;
		}
	}
	return -EINVAL;
}

/* A decimal or 0x-hex number with an optional sign, as gas writes them. */
static int parse_num(const char **pp, int64_t *v)
{
	const char *p = *pp;
	int neg = 0;
	uint64_t x = 0;
	int digits = 0;

	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		p += 2;
		for (; (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') || (*p >= 'A' && *p <= 'F');
		     p++, digits++) {
			unsigned d = *p <= '9' ? (unsigned)(*p - '0') : (unsigned)((*p | 0x20) - 'a' + 10);

			if (x >> 60)
				return -ERANGE;
			x = x << 4 | d;
		}
	} else {
		for (; *p >= '0' && *p <= '9'; p++, digits++) {
			if (x > (UINT64_MAX - 9) / 10)
				return -ERANGE;
			x = x * 10 + (uint64_t)(*p - '0');
		}
	}
	if (!digits)
		return -EINVAL;
	*v = neg ? (int64_t)(0 - x) : (int64_t)x;
	*pp = p;
	return 0;
}

static int bad(char *err, size_t errlen, const char *tok, size_t toklen, const char *why)
{
	snprintf(err, errlen, "argument '%.*s': %s", (int)(toklen > 40 ? 40 : toklen), tok, why);
	return -EINVAL;
}

static int parse_one(const char *tok, size_t toklen, struct usdt_arg *a, char *err, size_t errlen)
{
	const char *p = tok, *end = tok + toklen, *at = memchr(tok, '@', toklen);
	uint8_t rsize, shift;
	int64_t v;

	memset(a, 0, sizeof(*a));
	a->index = USDT_REG_NONE;
	a->reg = USDT_REG_NONE;
	a->size = 8;
	if (at) {
		if (parse_num(&p, &v) || p != at)
			return bad(err, errlen, tok, toklen, "size is not a number");
		a->is_signed = v < 0;
		if (v < 0)
			v = -v;
		if (v != 1 && v != 2 && v != 4 && v != 8)
			return bad(err, errlen, tok, toklen, "size must be 1, 2, 4 or 8 bytes");
		a->size = (uint8_t)v;
		p = at + 1;
	}
	if (p >= end)
		return bad(err, errlen, tok, toklen, "no operand");
	if (*p == '$') {
		p++;
		if (parse_num(&p, &a->value) || p != end)
			return bad(err, errlen, tok, toklen, "constant is not a number");
		a->kind = USDT_ARG_CONST;
		return 0;
	}
	if (*p == '%') {
		p++;
		if (parse_reg(&p, &a->reg, &rsize, &a->shift) || p != end)
			return bad(err, errlen, tok, toklen, "unknown register");
		if (a->reg == USDT_REG_IP)
			return bad(err, errlen, tok, toklen, "%rip is not a value");
		a->kind = USDT_ARG_REG;
		if (rsize < a->size)
			a->size = rsize; /* "8@%eax" would read stale upper bits */
		return 0;
	}
	a->value = 0;
	if (*p != '(') {
		if (parse_num(&p, &a->value))
			return bad(err, errlen, tok, toklen,
				   "symbol-relative operands are not supported");
		if (p >= end || *p != '(')
			return bad(err, errlen, tok, toklen,
				   "symbol-relative operands are not supported");
	}
	p++; /* '(' */
	if (p >= end || *p != '%')
		return bad(err, errlen, tok, toklen, "memory operand without a base register");
	p++;
	if (parse_reg(&p, &a->reg, &rsize, &shift) || rsize != 8 || shift)
		return bad(err, errlen, tok, toklen, "unknown base register");
	if (a->reg == USDT_REG_IP)
		return bad(err, errlen, tok, toklen, "%rip-relative operands are not supported");
	a->scale = 1;
	if (p < end && *p == ',') {
		p++;
		if (p >= end || *p != '%')
			return bad(err, errlen, tok, toklen, "bad index register");
		p++;
		if (parse_reg(&p, &a->index, &rsize, &shift) || rsize != 8 || shift ||
		    a->index == USDT_REG_IP)
			return bad(err, errlen, tok, toklen, "bad index register");
		if (p < end && *p == ',') {
			p++;
			if (parse_num(&p, &v) || (v != 1 && v != 2 && v != 4 && v != 8))
				return bad(err, errlen, tok, toklen, "scale must be 1, 2, 4 or 8");
			a->scale = (uint8_t)v;
		}
	}
	if (p >= end || *p != ')' || p + 1 != end)
		return bad(err, errlen, tok, toklen, "malformed memory operand");
	a->kind = USDT_ARG_MEM;
	return 0;
}

int usdt_parse_args(const char *spec, struct usdt_arg *args, int *n, char *err, size_t errlen)
{
	const char *p = spec;
	int count = 0, rc;

	if (errlen)
		err[0] = '\0';
	*n = 0;
	for (;;) {
		const char *tok;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		tok = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (count == USDT_MAX_ARGS) {
			snprintf(err, errlen, "more than %d arguments", USDT_MAX_ARGS);
			return -EINVAL;
		}
		rc = parse_one(tok, (size_t)(p - tok), &args[count], err, errlen);
		if (rc)
			return rc;
		count++;
	}
	*n = count;
	return 0;
}

static const char *sub_name(unsigned reg, unsigned size, unsigned shift, char *buf, size_t len)
{
	const char *full = usdt_reg_name(reg);
	static const char *const legacy[][4] = {
		/* 1, 2, 4 bytes */
		[USDT_REG_AX] = {"al", "ax", "eax", "ah"}, [USDT_REG_BX] = {"bl", "bx", "ebx", "bh"},
		[USDT_REG_CX] = {"cl", "cx", "ecx", "ch"}, [USDT_REG_DX] = {"dl", "dx", "edx", "dh"},
		[USDT_REG_SI] = {"sil", "si", "esi", NULL}, [USDT_REG_DI] = {"dil", "di", "edi", NULL},
		[USDT_REG_BP] = {"bpl", "bp", "ebp", NULL}, [USDT_REG_SP] = {"spl", "sp", "esp", NULL},
	};
	int k = size == 1 ? 0 : size == 2 ? 1 : 2;

	if (size == 8)
		return full;
	if (reg <= USDT_REG_SP) {
		const char *s = shift ? legacy[reg][3] : legacy[reg][k];

		return s ? s : full;
	}
	snprintf(buf, len, "%s%c", full, size == 4 ? 'd' : size == 2 ? 'w' : 'b');
	return buf;
}

void usdt_arg_format(const struct usdt_arg *a, char *buf, size_t len)
{
	char rb[8], ib[8];
	int size = a->is_signed ? -(int)a->size : (int)a->size;

	switch (a->kind) {
	case USDT_ARG_CONST:
		snprintf(buf, len, "%d@$%lld", size, (long long)a->value);
		break;
	case USDT_ARG_REG:
		snprintf(buf, len, "%d@%%%s", size, sub_name(a->reg, a->size, a->shift, rb, sizeof(rb)));
		break;
	case USDT_ARG_MEM:
		if (a->index != USDT_REG_NONE) {
			snprintf(ib, sizeof(ib), "%s", usdt_reg_name(a->index));
			snprintf(buf, len, "%d@%lld(%%%s,%%%s,%u)", size, (long long)a->value,
				 usdt_reg_name(a->reg), ib, a->scale);
		} else {
			snprintf(buf, len, "%d@%lld(%%%s)", size, (long long)a->value,
				 usdt_reg_name(a->reg));
		}
		break;
	default:
		snprintf(buf, len, "?");
	}
}
