/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ringside/gi_vcpu.h"

/* More than any monitor prints for GI_VCPU_REGS_MAX CPUs. */
#define TEXT_MAX (4u << 20)

static int is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

/* "NAME=value" in [@p, @end), NAME a word of its own (after a space or a
 * line break: "RSP" is not the end of another name).  1 and *@v; 0 when
 * absent or not a number.  QEMU pads short names ("R8 ="); the ones read
 * here it prints bare. */
static int field(const char *p, const char *end, const char *name, uint64_t *v)
{
	size_t len = strlen(name);
	uint64_t x = 0;
	int digits = 0;

	for (; (size_t)(end - p) > len + 1; p++) {
		if (p[len] != '=' || memcmp(p, name, len))
			continue;
		if (p[-1] != ' ' && p[-1] != '\n' && p[-1] != '\r')
			continue;
		for (p += len + 1; p < end && is_hex(*p) && digits < 17; p++, digits++)
			x = x << 4 | (uint64_t)(*p <= '9' ? *p - '0' :
						(*p | 0x20) - 'a' + 10);
		/* more than 16 digits is no register */
		if (!digits || digits > 16)
			return 0;
		*v = x;
		return 1;
	}
	return 0;
}

int gi_vcpu_regs_parse(const char *text, struct gi_vcpu_regs *out, uint32_t max,
		       uint32_t *n)
{
	const char *p = text, *end = text + strnlen(text, TEXT_MAX);

	*n = 0;
	while (*n < max && (p = strstr(p, "CPU#")) && p < end) {
		const char *next, *num = p + 4;
		struct gi_vcpu_regs r = { 0 };
		uint64_t v;
		char *stop;

		next = strstr(num, "CPU#");
		if (!next || next > end)
			next = end;
		p = next;
		if (*num < '0' || *num > '9')
			continue;
		v = strtoull(num, &stop, 10);
		if (v >= GI_VCPU_REGS_MAX || stop == num)
			continue;
		r.cpu = (uint32_t)v;
		if (!field(num, next, "RIP", &r.rip) ||
		    !field(num, next, "RSP", &r.rsp))
			continue;
		field(num, next, "RBP", &r.rbp);
		if (field(num, next, "CPL", &v) && v <= 3)
			r.cpl = (uint32_t)v;
		if (field(num, next, "HLT", &v))
			r.halted = v == 1;
		out[(*n)++] = r;
	}
	return *n ? 0 : -EINVAL;
}
