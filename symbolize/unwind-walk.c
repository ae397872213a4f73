/* unwind-walk.c: walking a copied user stack with compiled CFI rows
 * (unwind.h), and the frame-pointer leaf check.
 *
 * Per frame: find the row of the pc (unwind-cfi.c), compute the CFA, then
 * the caller's rbx, rbp, r12-r15 and return address; the caller's rsp is
 * the CFA. Memory is the stack copy only: a read outside it ends the walk
 * (as "stack-cut" when the copy stopped at its size limit). A pc with no
 * CFI is stepped through rbp when rbp points into the copy (code built
 * with frame pointers but without unwind tables, JIT code). The walk ends
 * at a frame whose return address CFI declares undefined (_start, the
 * clone of a thread) or is 0. Bounded: the stack pointer must grow every
 * frame, so a walk takes at most size/8 frames, and at most `max`. */
#include "unwind-internal.h"

#include <dwarf.h>
#include <string.h>

#define BIT(n)	   (1u << (n))
#define EXPR_STACK 16

static enum unwind_status read_u64(const struct unwind_stack *st, uint64_t addr, uint64_t *v)
{
	if (addr >= st->start && addr - st->start <= st->size &&
	    st->size - (addr - st->start) >= 8) {
		memcpy(v, st->data + (addr - st->start), 8);
		return UNWIND_OK_ROOT;
	}
	if (st->cut && addr >= st->start + st->size && addr < st->start + st->size + (1u << 20))
		return UNWIND_STACK_CUT;
	return UNWIND_BAD_MEMORY;
}

static int reg_value(const struct unwind_regs *r, uint64_t reg, uint64_t *v)
{
	if (reg >= UNWIND_NREGS || !(r->valid & BIT(reg)))
		return 0;
	*v = r->r[reg];
	return 1;
}

/* Evaluates a DWARF expression of CFI (the subset compilers and glibc's
 * hand-written CFI use: PLT entries, signal frames, stack realignment).
 * Starts with the CFA pushed when `push_cfa`. */
static enum unwind_status eval(const struct unw_op *ops, size_t n, const struct unwind_regs *r,
			       const struct unwind_stack *st, uint64_t cfa, int push_cfa,
			       uint64_t *out)
{
	uint64_t s[EXPR_STACK], a, b;
	size_t sp = 0, i;
	enum unwind_status e;

	if (push_cfa)
		s[sp++] = cfa;
	for (i = 0; i < n; i++) {
		uint8_t op = ops[i].atom;

		if (sp + 1 >= EXPR_STACK)
			return UNWIND_BAD_CFI;
		if (op >= DW_OP_breg0 && op <= DW_OP_breg31) {
			if (!reg_value(r, op - DW_OP_breg0, &a))
				return UNWIND_BAD_CFI;
			s[sp++] = a + ops[i].n1;
			continue;
		}
		if (op >= DW_OP_lit0 && op <= DW_OP_lit31) {
			s[sp++] = op - DW_OP_lit0;
			continue;
		}
		switch (op) {
		case DW_OP_bregx:
			if (!reg_value(r, ops[i].n1, &a))
				return UNWIND_BAD_CFI;
			s[sp++] = a + ops[i].n2;
			continue;
		case DW_OP_call_frame_cfa:
			s[sp++] = cfa;
			continue;
		case DW_OP_addr:
		case DW_OP_const1u:
		case DW_OP_const1s:
		case DW_OP_const2u:
		case DW_OP_const2s:
		case DW_OP_const4u:
		case DW_OP_const4s:
		case DW_OP_const8u:
		case DW_OP_const8s:
		case DW_OP_constu:
		case DW_OP_consts:
			s[sp++] = ops[i].n1;
			continue;
		case DW_OP_dup:
			if (!sp)
				return UNWIND_BAD_CFI;
			s[sp] = s[sp - 1];
			sp++;
			continue;
		case DW_OP_nop:
			continue;
		default:
			break;
		}
		/* One-operand operations. */
		if (!sp)
			return UNWIND_BAD_CFI;
		a = s[sp - 1];
		switch (op) {
		case DW_OP_deref:
			e = read_u64(st, a, &s[sp - 1]);
			if (e)
				return e;
			continue;
		case DW_OP_plus_uconst:
			s[sp - 1] = a + ops[i].n1;
			continue;
		case DW_OP_neg:
			s[sp - 1] = -a;
			continue;
		case DW_OP_not:
			s[sp - 1] = ~a;
			continue;
		case DW_OP_drop:
			sp--;
			continue;
		default:
			break;
		}
		/* Two-operand operations: b op a. */
		if (sp < 2)
			return UNWIND_BAD_CFI;
		b = s[sp - 2];
		switch (op) {
		case DW_OP_plus:
			b += a;
			break;
		case DW_OP_minus:
			b -= a;
			break;
		case DW_OP_mul:
			b *= a;
			break;
		case DW_OP_and:
			b &= a;
			break;
		case DW_OP_or:
			b |= a;
			break;
		case DW_OP_xor:
			b ^= a;
			break;
		case DW_OP_shl:
			b = a < 64 ? b << a : 0;
			break;
		case DW_OP_shr:
			b = a < 64 ? b >> a : 0;
			break;
		case DW_OP_ge:
			b = (int64_t)b >= (int64_t)a;
			break;
		case DW_OP_gt:
			b = (int64_t)b > (int64_t)a;
			break;
		case DW_OP_le:
			b = (int64_t)b <= (int64_t)a;
			break;
		case DW_OP_lt:
			b = (int64_t)b < (int64_t)a;
			break;
		case DW_OP_eq:
			b = b == a;
			break;
		case DW_OP_ne:
			b = b != a;
			break;
		case DW_OP_swap:
			s[sp - 2] = a;
			s[sp - 1] = b;
			continue;
		case DW_OP_over:
			s[sp++] = b;
			continue;
		default:
			return UNWIND_BAD_CFI; /* not seen in CFI: refuse rather than guess */
		}
		s[sp - 2] = b;
		sp--;
	}
	if (!sp)
		return UNWIND_BAD_CFI;
	*out = s[sp - 1];
	return UNWIND_OK_ROOT;
}

static enum unwind_status row_cfa(const struct unwinder *u, const struct unw_row *row,
				  const struct unwind_regs *r, const struct unwind_stack *st,
				  uint64_t *cfa)
{
	uint64_t v;

	if (row->cfa.kind == UNW_REG) {
		if (!reg_value(r, row->cfa.reg, &v))
			return UNWIND_BAD_CFI;
		*cfa = v + (uint64_t)row->cfa.off;
		return UNWIND_OK_ROOT;
	}
	return eval(u->ops + row->cfa.ops, row->cfa.nops, r, st, 0, 0, cfa);
}

/* The caller's value of tracked register slot i. 0, or a status (with
 * UNWIND_OK_ROOT meaning "undefined": not an error). */
static enum unwind_status rule_value(const struct unwinder *u, const struct unw_rule *rule, int reg,
				     const struct unwind_regs *r, const struct unwind_stack *st,
				     uint64_t cfa, uint64_t *v, int *known)
{
	enum unwind_status e;
	uint64_t addr;

	*known = 0;
	switch (rule->kind) {
	case UNW_UNDEF:
		return UNWIND_OK_ROOT;
	case UNW_SAME:
		*known = reg_value(r, (uint64_t)reg, v);
		return UNWIND_OK_ROOT;
	case UNW_AT_CFA:
		addr = cfa + (uint64_t)rule->off;
		if (addr < r->r[UNWIND_RSP] && reg != UNWIND_RIP)
			goto restored;
		e = read_u64(st, addr, v);
		break;
	case UNW_VAL_CFA:
		*v = cfa + (uint64_t)rule->off;
		e = UNWIND_OK_ROOT;
		break;
	case UNW_AT_EXPR:
		e = eval(u->ops + rule->ops, rule->nops, r, st, cfa, 1, &addr);
		if (!e && addr < r->r[UNWIND_RSP] && reg != UNWIND_RIP)
			goto restored;
		if (!e)
			e = read_u64(st, addr, v);
		break;
	case UNW_VAL_EXPR:
		e = eval(u->ops + rule->ops, rule->nops, r, st, cfa, 1, v);
		break;
	default:
		return UNWIND_BAD_CFI;
	}
	*known = !e;
	return e;
restored:
	/* The save slot is below the stack pointer: popped already, in an
	 * epilogue whose CFI (gcc's) does not say the register is back. */
	*known = reg_value(r, (uint64_t)reg, v);
	return UNWIND_OK_ROOT;
}

/* Through rbp, for code without CFI: [rbp] is the caller's rbp, [rbp + 8]
 * the return address. */
static enum unwind_status fp_step(struct unwinder *u, const struct unwind_regs *r,
				  const struct unwind_stack *st, struct unwind_regs *next)
{
	uint64_t bp, sp, ra, nbp;

	if (!reg_value(r, UNWIND_RBP, &bp) || !reg_value(r, UNWIND_RSP, &sp) || bp < sp ||
	    read_u64(st, bp, &nbp) || read_u64(st, bp + 8, &ra))
		return UNWIND_NO_CFI;
	*next = *r;
	next->valid &=
	    BIT(UNWIND_RBX) | BIT(UNWIND_R12) | BIT(UNWIND_R13) | BIT(UNWIND_R14) | BIT(UNWIND_R15);
	next->r[UNWIND_RBP] = nbp;
	next->r[UNWIND_RSP] = bp + 16;
	next->r[UNWIND_RIP] = ra;
	next->valid |= BIT(UNWIND_RBP) | BIT(UNWIND_RSP) | BIT(UNWIND_RIP);
	u->st.fp_steps++;
	return UNWIND_OK_ROOT;
}

enum unwind_status unwinder__unwind(struct unwinder *u, uint32_t pid,
				    const struct unwind_regs *regs,
				    const struct unwind_stack *stack, uint64_t *pcs, size_t max,
				    size_t *n)
{
	struct unwind_regs cur = *regs, next;
	int exact = 1;

	*n = 0;
	if (!(cur.valid & BIT(UNWIND_RIP)) || !(cur.valid & BIT(UNWIND_RSP)))
		return UNWIND_BAD_CFI;
	for (;;) {
		uint64_t pc = cur.r[UNWIND_RIP], cfa, v;
		enum unwind_status e;
		const struct unw_row *row;
		size_t i;
		int known;

		if (*n >= max)
			return UNWIND_MAX_FRAMES;
		pcs[(*n)++] = pc;
		if (u->opts.frame_hook)
			u->opts.frame_hook(u->opts.frame_ctx, pid, &cur, stack, &pcs[*n - 1]);
		/* A return address is just past the call, maybe past the end
		 * of the function (a call to a noreturn function): look up the
		 * call instruction. */
		row = unw_find_row(u, pid, exact ? pc : pc - 1, &e);
		if (row && row->entry)
			return UNWIND_OK_ROOT;
		if (!row || row->no_cfi) {
			if (row)
				e = UNWIND_NO_CFI;
			if ((row || !u->opts.frame_step ||
			     !u->opts.frame_step(u->opts.frame_ctx, pid, &cur, stack, &next)) &&
			    fp_step(u, &cur, stack, &next))
				return e;
			exact = 0;
		} else {
			e = row_cfa(u, row, &cur, stack, &cfa);
			if (e)
				return e;
			memset(&next, 0, sizeof(next));
			next.r[UNWIND_RSP] = cfa;
			next.valid = BIT(UNWIND_RSP);
			for (i = 0; i < UNW_NTRACKED; i++) {
				int reg = unw_tracked[i];

				e = rule_value(u, &row->regs[i], reg, &cur, stack, cfa, &v, &known);
				if (e && i == UNW_RA_SLOT)
					return e;
				if (known) {
					next.r[reg] = v;
					next.valid |= BIT(reg);
				}
			}
			exact = row->signal;
		}
		if (!(next.valid & BIT(UNWIND_RIP)) || !next.r[UNWIND_RIP])
			return UNWIND_OK_ROOT;
		if (next.r[UNWIND_RSP] <= cur.r[UNWIND_RSP])
			return UNWIND_NO_PROGRESS;
		cur = next;
	}
}

int unwinder__frameless(struct unwinder *u, uint32_t pid, uint64_t pc)
{
	enum unwind_status e;
	const struct unw_row *row = unw_find_row(u, pid, pc, &e);

	return row && !row->no_cfi && row->cfa.kind == UNW_REG && row->cfa.reg == UNWIND_RSP;
}

int unwinder__leaf_return(struct unwinder *u, uint32_t pid, const struct unwind_regs *regs,
			  const struct unwind_stack *stack, uint64_t *ra)
{
	const uint32_t need = BIT(UNWIND_RIP) | BIT(UNWIND_RSP) | BIT(UNWIND_RBP);
	const struct unw_row *row;
	enum unwind_status e;
	uint64_t cfa;
	int known;

	if ((regs->valid & need) != need)
		return 0;
	row = unw_find_row(u, pid, regs->r[UNWIND_RIP], &e);
	if (!row || row->no_cfi)
		return 0;
	/* CFA from rbp: the function has set up its frame, and the kernel's
	 * walk from rbp found its return address itself. */
	if (row->cfa.kind == UNW_REG ? row->cfa.reg == UNWIND_RBP
				     : row->cfa.nops && u->ops[row->cfa.ops].atom == DW_OP_breg6)
		return 0;
	if (row_cfa(u, row, regs, stack, &cfa))
		return 0;
	if (rule_value(u, &row->regs[UNW_RA_SLOT], UNWIND_RIP, regs, stack, cfa, ra, &known) ||
	    !known || !*ra)
		return 0;
	return 1;
}
