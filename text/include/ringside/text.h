/* SPDX-License-Identifier: MIT */
/*
 * Strings ringside did not write itself (a perf.data file's host name
 * and command line, what a guest says of itself, a domain name asked for
 * on a socket) made safe to show.  Whatever bytes they hold, what comes
 * out is printable ASCII: no byte below 0x20, no DEL, no ESC, nothing at
 * or above 0x80, so that no terminal sequence (a title, a cursor move, a
 * hyperlink) and no bidirectional trick reaches the reader, and a JSON
 * document stays valid UTF-8 whatever its strings held.
 *
 * Each call writes into a caller's buffer, always ends it with a NUL, cuts
 * only between two characters' escapes (never inside one), and returns
 * the length the whole would take, like snprintf: a result >= @len means
 * it was cut.  RS_TEXT_*_MAX(n) is a buffer that always holds n bytes.
 */
#ifndef RINGSIDE_TEXT_H
#define RINGSIDE_TEXT_H

#include <stddef.h>

/* rs_text_term flags */
#define RS_TEXT_QUOTED 1u   /* inside "...": '"' escaped as \" too */
#define RS_TEXT_BYTES  2u   /* all @n bytes: a NUL is "\x00", not the end */

#define RS_TEXT_TERM_MAX(n) (4 * (n) + 1)   /* "\xHH" a byte at worst */
#define RS_TEXT_JSON_MAX(n) (6 * (n) + 1)   /* "\uXXXX" a byte at worst */

/*
 * For a terminal or a log line: printable ASCII (0x20..0x7e) as it is,
 * '\' as "\\", with RS_TEXT_QUOTED '"' as "\"", every other byte (control
 * bytes, DEL, anything at or above 0x80) as "\xHH".  @n bytes of @s, or
 * up to its NUL, whichever comes first (with RS_TEXT_BYTES: @n bytes).
 */
size_t rs_text_term(char *buf, size_t len, const char *s, size_t n,
		    unsigned flags);

/* rs_text_term of a whole NUL-terminated string, @buf returned (for a
 * printf argument). */
const char *rs_text_str(char *buf, size_t len, const char *s, unsigned flags);

/*
 * The inside of a JSON string (no quotes): '"' and '\' escaped, control
 * bytes and DEL as \u00XX, every well-formed UTF-8 character past ASCII
 * as \uXXXX (a surrogate pair above U+FFFF), and each byte of a sequence
 * that is not well-formed UTF-8 (a stray continuation byte, a truncated
 * or overlong sequence, a surrogate, a code point past U+10FFFF) as
 * \ufffd.  The result is plain ASCII: valid JSON and valid UTF-8.
 */
size_t rs_text_json(char *buf, size_t len, const char *s, size_t n);

/*
 * The length of the well-formed UTF-8 character at @s (@n bytes left),
 * its code point in *@cp: 1..4, or 0 when the bytes there are not one
 * (then *@cp is U+FFFD).  @n must be at least 1.
 */
size_t rs_text_utf8(const unsigned char *s, size_t n, unsigned *cp);

/*
 * What the readers of such strings check and cut, written once: 1 if
 * each of the @n bytes at @s is printable ASCII other than the space
 * (0x21..0x7e, isgraph's in the C locale), else 0 (a path or a name a
 * guest published, before it is taken).
 */
int rs_text_graph(const char *s, size_t n);

/* @s without its leading blanks (space, tab) and trailing ones (space,
 * tab, carriage return), cut in place: a pointer into @s (a line of a
 * configuration file). */
char *rs_text_trim(char *s);

#endif /* RINGSIDE_TEXT_H */
