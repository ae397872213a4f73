/* callsite.c: decoding the call before a return address (see callsite.h). */
#include "callsite.h"

#include <string.h>

static int32_t rel32(const uint8_t *p)
{
	uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
		     (uint32_t)p[3] << 24;
	int32_t s;

	memcpy(&s, &v, sizeof(s));
	return s;
}

static uint64_t slot_value(uint64_t slot, callsite_read_fn read, void *ctx)
{
	uint64_t v;

	return read(ctx, slot, &v, sizeof(v)) ? 0 : v;
}

/* Where a PLT stub at addr jumps (its GOT slot's value), or addr itself
 * when it is not a stub of a form known here:
 *   ff 25 disp32                     jmp *disp(%rip)
 *   f2 ff 25 disp32                  bnd jmp *disp(%rip)
 *   f3 0f 1e fa ff 25 disp32         endbr64; jmp *disp(%rip)
 *   f3 0f 1e fa f2 ff 25 disp32      endbr64; bnd jmp *disp(%rip)
 * A slot not yet bound (lazy binding) points back into the PLT: that stub
 * address is kept then. */
static uint64_t through_plt(uint64_t addr, callsite_read_fn read, void *ctx)
{
	static const uint8_t endbr64[4] = {0xf3, 0x0f, 0x1e, 0xfa};
	uint8_t c[11];
	size_t at = 0;
	uint64_t to;

	if (read(ctx, addr, c, sizeof(c)))
		return addr;
	if (!memcmp(c, endbr64, sizeof(endbr64)))
		at = 4;
	if (c[at] == 0xf2)
		at++;
	if (c[at] != 0xff || c[at + 1] != 0x25)
		return addr;
	to = slot_value(addr + at + 6 + (uint64_t)(int64_t)rel32(c + at + 2), read, ctx);
	/* Unbound: the slot holds the address of the stub's own push (within
	 * a few bytes of it) or of the PLT's resolver entry. */
	if (!to || (to > (addr >= 64 ? addr - 64 : 0) && to < addr + 64))
		return addr;
	return to;
}

uint64_t callsite_target(uint64_t ra, callsite_read_fn read, void *ctx)
{
	uint8_t c[6];
	uint64_t to;

	if (ra < sizeof(c) || read(ctx, ra - sizeof(c), c, sizeof(c)))
		return 0;
	if (c[1] == 0xe8) /* call rel32: 5 bytes */
		to = ra + (uint64_t)(int64_t)rel32(c + 2);
	else if (c[0] == 0xff && c[1] == 0x15) /* call *disp32(%rip): 6 bytes */
		to = slot_value(ra + (uint64_t)(int64_t)rel32(c + 2), read, ctx);
	else
		return 0;
	return to ? through_plt(to, read, ctx) : 0;
}
