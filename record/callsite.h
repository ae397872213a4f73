/* callsite.h: which function a return address's call instruction called,
 * read from the target's code: the frame-pointer leaf fix without stack
 * copies (user-stack.c, docs/unwind-design.md).
 *
 * A frameless leaf F (or any function sampled before its frame is set up)
 * leaves rbp pointing at the frame of the function X that called it, so
 * the kernel's walk gives F's pc and then the return address R into X's
 * caller: X itself is missing. But the instruction before R is the call
 * that entered X; when it is a direct call (e8 rel32) or a call through a
 * GOT slot (ff 15 disp32), it names X. A call into a PLT stub is followed
 * through the stub's GOT slot to the function it jumps to. Calls through a
 * register or other memory operands name nothing: no fix. */
#ifndef PROF_RECORD_CALLSITE_H
#define PROF_RECORD_CALLSITE_H

#include <stddef.h>
#include <stdint.h>

/* Reads n bytes of the target's memory at addr into buf: 0, or -1. */
typedef int (*callsite_read_fn)(void *ctx, uint64_t addr, void *buf, size_t n);

/* The function entered by the call that ends at return address ra, or 0
 * when it cannot be known. */
uint64_t callsite_target(uint64_t ra, callsite_read_fn read, void *ctx);

#endif
