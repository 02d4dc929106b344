/* SPDX-License-Identifier: MIT */
/* Strings from outside made safe to show (ringside/text.h). */
#include <stdio.h>
#include <string.h>

#include "ringside/text.h"

/* The output so far: what fits is written whole, the rest only counted. */
struct out {
	char *buf;
	size_t len;
	size_t at;      /* the length the whole would take so far */
	size_t written; /* the bytes in buf: whole pieces only */
};

static void put(struct out *o, const char *piece, size_t n)
{
	if (o->written == o->at && o->at + n < o->len) {
		memcpy(o->buf + o->at, piece, n);
		o->written += n;
	}
	o->at += n;
}

/* The NUL after the last whole piece; the length of the whole. */
static size_t done(struct out *o)
{
	if (o->len)
		o->buf[o->written] = '\0';
	return o->at;
}

size_t rs_text_utf8(const unsigned char *s, size_t n, unsigned *cp)
{
	unsigned c = s[0], min, need, i;

	*cp = 0xfffd;
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		need = 1;
		min = 0x80;
		c &= 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		need = 2;
		min = 0x800;
		c &= 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 3;
		min = 0x10000;
		c &= 0x07;
	} else {
		return 0;   /* a continuation byte, 0xc0/0xc1, 0xf5.. */
	}
	if (n < need + 1)
		return 0;
	for (i = 1; i <= need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3fu);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return need + 1;
}

/* Printable ASCII @ch, after a backslash when it is one of @special. */
static void put_printable(struct out *o, unsigned ch, const char *special)
{
	char esc[2] = { '\\', (char)ch };

	if (strchr(special, (int)ch))
		put(o, esc, 2);
	else
		put(o, esc + 1, 1);
}

/* How many bytes of @s to take: @n, or up to its NUL. */
static size_t span(const char *s, size_t n)
{
	const char *nul = memchr(s, '\0', n);

	return nul ? (size_t)(nul - s) : n;
}

size_t rs_text_term(char *buf, size_t len, const char *s, size_t n,
		    unsigned flags)
{
	struct out o = { buf, len, 0, 0 };
	const char *special = flags & RS_TEXT_QUOTED ? "\\\"" : "\\";

	n = !s ? 0 : flags & RS_TEXT_BYTES ? n : span(s, n);
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		char esc[8];

		if (ch >= 0x20 && ch < 0x7f) {
			put_printable(&o, ch, special);
		} else {
			snprintf(esc, sizeof(esc), "\\x%02x", ch);
			put(&o, esc, 4);
		}
	}
	return done(&o);
}

const char *rs_text_str(char *buf, size_t len, const char *s, unsigned flags)
{
	rs_text_term(buf, len, s, s ? strlen(s) : 0, flags);
	return buf;
}

size_t rs_text_json(char *buf, size_t len, const char *s, size_t n)
{
	struct out o = { buf, len, 0, 0 };
	size_t i = 0;

	n = s ? span(s, n) : 0;
	while (i < n) {
		const unsigned char *p = (const unsigned char *)s + i;
		char esc[16];
		unsigned cp;
		size_t k = rs_text_utf8(p, n - i, &cp);

		i += k ? k : 1;
		if (cp >= 0x20 && cp < 0x7f) {
			put_printable(&o, cp, "\\\"");
		} else if (cp < 0x10000) {
			snprintf(esc, sizeof(esc), "\\u%04x", cp);
			put(&o, esc, 6);
		} else {
			cp -= 0x10000;
			snprintf(esc, sizeof(esc), "\\u%04x\\u%04x",
				 0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ffu));
			put(&o, esc, 12);
		}
	}
	return done(&o);
}

int rs_text_graph(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x21 || (unsigned char)s[i] > 0x7e)
			return 0;
	return 1;
}

char *rs_text_trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}
