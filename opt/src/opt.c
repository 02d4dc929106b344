/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ringside/opt.h"

#define WIDTH   79     /* help lines stay within 80 columns */
#define COL_MAX 28     /* where option help starts, at the most */

static const struct opt help_opt = {
	.name = "help", .key = 'h', .kind = OPTK_HELP, .help = "this text",
};

/* The table's options, then --help. */
static const struct opt *opt_at(const struct opt_cmd *c, size_t i)
{
	size_t n = 0;

	while (c->opts && c->opts[n].name)
		n++;
	return i < n ? &c->opts[i] : i == n ? &help_opt : NULL;
}

int opt_vusage(const char *prog, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\nTry '%s --help'.\n", prog);
	return OPT_EXIT_USAGE;
}

int opt_usage(const char *prog, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = opt_vusage(prog, fmt, ap);
	va_end(ap);
	return ret;
}

/* ---- values ---------------------------------------------------------------- */

int opt_u32(const char *s, uint32_t max, uint32_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

static int is_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

/* "a, b or c" into @buf. */
static const char *join_names(const char *const *names, char *buf, size_t len)
{
	size_t n = 0, i, at = 0;

	while (names[n])
		n++;
	buf[0] = '\0';
	for (i = 0; i < n && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s",
				       i == 0 ? "" : i + 1 == n ? " or " : ", ",
				       names[i]);
	return buf;
}

static int bad_value(const struct opt_cmd *c, const struct opt *o,
		     const char *v)
{
	const char *unit = o->unit ? o->unit : "a number";
	char names[256];
	double d;

	switch (o->kind) {
	case OPTK_U32:
		if (o->max == UINT32_MAX)
			return opt_usage(c->prog, "--%s wants %s >= %u, not '%s'",
					 o->name, unit, o->min, v);
		return opt_usage(c->prog, "--%s wants %s %u..%u, not '%s'",
				 o->name, unit, o->min, o->max, v);
	case OPTK_POW2:
		return opt_usage(c->prog, "--%s wants a power of two%s up to %u, "
				 "not '%s'", o->name, o->min ? "" : " or 0",
				 o->max, v);
	case OPTK_SECONDS:
		d = strtod(v, NULL);
		if (d > 0.0 && d > (double)o->max)
			return opt_usage(c->prog, "--%s wants seconds up to %u, "
					 "not '%s'", o->name, o->max, v);
		return opt_usage(c->prog, "--%s wants seconds > 0, not '%s'",
				 o->name, v);
	case OPTK_ENUM:
		return opt_usage(c->prog, "--%s is %s, not '%s'", o->name,
				 join_names(o->names, names, sizeof(names)), v);
	case OPTK_LIST:
		return opt_usage(c->prog, "--%s is taken at most %u times; '%s' is "
				 "one too many", o->name, o->max, v);
	default:
		return opt_usage(c->prog, "--%s: bad value '%s'", o->name, v);
	}
}

/* Check @v against @o and store it; 0 or OPT_EXIT_USAGE (printed). */
static int store(const struct opt_cmd *c, const struct opt *o, const char *v)
{
	const char *why;
	uint32_t u, i;
	double d;
	char *end;

	switch (o->kind) {
	case OPTK_FLAG:
		*(int *)o->dest = 1;
		return 0;
	case OPTK_STRING:
		*(const char **)o->dest = v;
		return 0;
	case OPTK_LIST:
		if (*o->count >= o->max)
			return bad_value(c, o, v);
		((const char **)o->dest)[(*o->count)++] = v;
		return 0;
	case OPTK_U32:
		if (opt_u32(v, UINT32_MAX, &u) || u < o->min || u > o->max)
			return bad_value(c, o, v);
		*(uint32_t *)o->dest = u;
		return 0;
	case OPTK_POW2:
		if (opt_u32(v, UINT32_MAX, &u) || u < o->min || u > o->max ||
		    (u && !is_pow2(u)))
			return bad_value(c, o, v);
		*(uint32_t *)o->dest = u;
		return 0;
	case OPTK_SECONDS:
		errno = 0;
		d = strtod(v, &end);
		if (!*v || errno || *end || !isfinite(d) || d <= 0.0 ||
		    d > (double)o->max)
			return bad_value(c, o, v);
		*(double *)o->dest = d;
		return 0;
	case OPTK_ENUM:
		for (i = 0; o->names[i]; i++) {
			if (!strcmp(v, o->names[i])) {
				*(uint32_t *)o->dest = i;
				return 0;
			}
		}
		return bad_value(c, o, v);
	case OPTK_FN:
		why = o->fn(o, v);
		return why ? opt_usage(c->prog, "--%s '%s': %s", o->name, v, why) : 0;
	default:
		return bad_value(c, o, v);
	}
}

static int takes_value(const struct opt *o)
{
	return o->kind != OPTK_FLAG && o->kind != OPTK_HELP;
}

/* An option that was found, with its value if it takes one.  OPT_HELP,
 * 0 or OPT_EXIT_USAGE. */
static int found(const struct opt_cmd *c, const struct opt *o, const char *v)
{
	if (o->kind == OPTK_HELP) {
		opt_help(c);
		return OPT_HELP;
	}
	return store(c, o, v);
}

/* ---- argv ------------------------------------------------------------------ */

/* --NAME or a unique prefix of one; NULL after saying what is wrong. */
static const struct opt *find_long(const struct opt_cmd *c, const char *arg,
				   size_t len, int *ret)
{
	const struct opt *o, *match = NULL;
	char also[256] = "";
	size_t i, at = 0;
	int n = 0;

	for (i = 0; len && (o = opt_at(c, i)); i++) {
		if (strncmp(o->name, arg, len))
			continue;
		if (strlen(o->name) == len)
			return o;
		if (n++ && at < sizeof(also))
			at += (size_t)snprintf(also + at, sizeof(also) - at, "%s--%s",
					       at ? ", " : "", match->name);
		match = o;
	}
	if (n == 1)
		return match;
	if (n > 1 && at < sizeof(also))
		snprintf(also + at, sizeof(also) - at, " or --%s", match->name);
	*ret = n ? opt_usage(c->prog, "option '--%.*s' is ambiguous: %s?",
			     (int)len, arg, also) :
		   opt_usage(c->prog, "unknown option '--%.*s'", (int)len, arg);
	return NULL;
}

static const struct opt *find_short(const struct opt_cmd *c, char key)
{
	const struct opt *o;
	size_t i;

	for (i = 0; (o = opt_at(c, i)); i++)
		if (o->key && o->key == key)
			return o;
	return NULL;
}

/* argv[@i] is "--NAME[=VALUE]"; sets *@used to the arguments it took. */
static int parse_long(const struct opt_cmd *c, int argc, char **argv, int i,
		      int *used)
{
	const char *name = argv[i] + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct opt *o;
	int ret = 0;

	*used = 1;
	o = find_long(c, name, len, &ret);
	if (!o)
		return ret;
	if (!takes_value(o)) {
		if (eq)
			return opt_usage(c->prog, "option '--%s' takes no value",
					 o->name);
		return found(c, o, NULL);
	}
	if (eq)
		return found(c, o, eq + 1);
	if (i + 1 >= argc)
		return opt_usage(c->prog, "option '%s' needs a value", argv[i]);
	*used = 2;
	return found(c, o, argv[i + 1]);
}

/* argv[@i] is "-abc": flags, the last may take a value ("-ofile", "-o file"). */
static int parse_short(const struct opt_cmd *c, int argc, char **argv, int i,
		       int *used)
{
	const char *s;
	int ret;

	*used = 1;
	for (s = argv[i] + 1; *s; s++) {
		const struct opt *o = find_short(c, *s);

		if (!o)
			return opt_usage(c->prog, "unknown option '-%c'", *s);
		if (!takes_value(o)) {
			ret = found(c, o, NULL);
			if (ret)
				return ret;
			continue;
		}
		if (s[1])
			return found(c, o, s + 1);
		if (i + 1 >= argc)
			return opt_usage(c->prog, "option '-%c' needs a value", *s);
		*used = 2;
		return found(c, o, argv[i + 1]);
	}
	return 0;
}

/* Move argv[@from .. @from + @n - 1] down to @to, what was between up:
 * options go before the operands seen so far, as getopt_long() does. */
static void rotate(char **argv, int to, int from, int n)
{
	while (n--) {
		char *a = argv[from];

		memmove(argv + to + 1, argv + to, (size_t)(from - to) * sizeof(*argv));
		argv[to++] = a;
		from++;
	}
}

static int check_args(const struct opt_cmd *c, int nargs, char **args)
{
	if ((uint32_t)nargs < c->min_args)
		return opt_usage(c->prog, "%s", c->missing ? c->missing :
				 "an operand is missing");
	if (c->max_args == OPT_ANY_ARGS || (uint32_t)nargs <= c->max_args)
		return 0;
	if (c->max_args == 1 && c->args && c->args[0].name)
		return opt_usage(c->prog, "one %s only; '%s' is extra",
				 c->args[0].name, args[1]);
	return opt_usage(c->prog, "'%s' is extra", args[c->max_args]);
}

int opt_parse(const struct opt_cmd *c, int argc, char **argv, int *first)
{
	int i = 1, nopt = 1, used, ret;

	if (!c || !argv || argc < 1)
		return OPT_EXIT_USAGE;
	/* argv[1 .. nopt-1]: options done; argv[nopt .. i-1]: operands */
	while (i < argc) {
		const char *a = argv[i];

		if (a[0] != '-' || !a[1]) {
			if (c->flags & OPT_IN_ORDER)
				break;
			i++;
			continue;
		}
		if (!strcmp(a, "--")) {
			rotate(argv, nopt, i, 1);
			nopt++;
			i++;
			break;
		}
		ret = a[1] == '-' ? parse_long(c, argc, argv, i, &used) :
				    parse_short(c, argc, argv, i, &used);
		if (ret)
			return ret;
		rotate(argv, nopt, i, used);
		nopt += used;
		i += used;
	}
	ret = check_args(c, argc - nopt, argv + nopt);
	if (!ret && first)
		*first = nopt;
	return ret;
}

/* ---- help ------------------------------------------------------------------ */

/*
 * @text from column @col (the cursor is there), each line wrapped at WIDTH.
 * "\n" breaks; every later line, and the continuation of a line, starts at
 * @indent plus the line's own leading spaces.  Ends with a newline.
 */
static void put_text(const char *text, int col, int indent)
{
	const char *s = text;

	for (;;) {
		int lead = (int)strspn(s, " "), start = indent + lead, first = 1;

		printf("%*s", lead, "");
		col += lead;
		s += lead;
		while (*s && *s != '\n') {
			size_t sp = strspn(s, " "), w = strcspn(s + sp, " \n");

			if (!s[sp] || s[sp] == '\n') {
				s += sp;         /* trailing blanks */
				break;
			}
			if (!first && col + (int)(sp + w) > WIDTH) {
				printf("\n%*s", start, "");
				col = start;
				s += sp;
				sp = 0;
			}
			printf("%.*s", (int)(sp + w), s);
			col += (int)(sp + w);
			s += sp + w;
			first = 0;
		}
		putchar('\n');
		if (!*s)
			return;
		s++;                     /* the '\n' */
		printf("%*s", indent, "");
		col = indent;
	}
}

/* @o's help with "{min}" and "{max}" replaced by its range. */
static const char *expand(const struct opt *o, char *buf, size_t len)
{
	const char *s = o->help ? o->help : "";
	size_t at = 0;

	while (*s && at + 1 < len) {
		int is_min = !strncmp(s, "{min}", 5);

		if (is_min || !strncmp(s, "{max}", 5)) {
			at += (size_t)snprintf(buf + at, len - at, "%u",
					       is_min ? o->min : o->max);
			s += 5;
		} else {
			buf[at++] = *s++;
		}
	}
	buf[at < len ? at : len - 1] = '\0';
	return buf;
}

/* "  -o, --output FILE" into @buf; its width. */
static int label(const struct opt *o, char *buf, size_t len)
{
	char key[8] = "    ";

	if (o->key)
		snprintf(key, sizeof(key), "-%c, ", o->key);
	return snprintf(buf, len, "  %s--%s%s%s", key, o->name,
			o->arg ? " " : "", o->arg ? o->arg : "");
}

/* A label and its help from column @col, or from the next line if the
 * label reaches it. */
static void item(const char *lab, int width, const char *help, int col)
{
	if (width + 2 > col)
		printf("%s\n%*s", lab, col, "");
	else
		printf("%s%*s", lab, col - width, "");
	put_text(help, col, col);
}

void opt_help(const struct opt_cmd *c)
{
	char lab[128], text[1024];
	const struct opt *o;
	const char *form;
	int col = 0, w, indent;
	size_t i;

	if (!c)
		return;
	/* the help column: after the widest label that fits COL_MAX */
	for (i = 0; c->args && c->args[i].name; i++) {
		w = 2 + (int)strlen(c->args[i].name) + 2;
		if (w <= COL_MAX && w > col)
			col = w;
	}
	for (i = 0; (o = opt_at(c, i)); i++) {
		w = label(o, lab, sizeof(lab)) + 2;
		if (w <= COL_MAX && w > col)
			col = w;
	}
	/* usage: PROG FORM, one a line, wrapped under the form */
	indent = (int)strlen("usage: ") + (int)strlen(c->prog) + 1;
	form = c->usage ? c->usage : "";
	for (i = 0;; i++) {
		size_t n = strcspn(form, "\n");

		snprintf(text, sizeof(text), "%.*s", (int)n, form);
		printf("%s%s ", i ? "       " : "usage: ", c->prog);
		put_text(text, indent, indent);
		if (!form[n])
			break;
		form += n + 1;
	}
	if (c->about) {
		putchar('\n');
		put_text(c->about, 0, 0);
	}
	putchar('\n');
	for (i = 0; c->args && c->args[i].name; i++) {
		snprintf(lab, sizeof(lab), "  %s", c->args[i].name);
		item(lab, (int)strlen(lab), c->args[i].help, col);
	}
	for (i = 0; (o = opt_at(c, i)); i++) {
		w = label(o, lab, sizeof(lab));
		item(lab, w, expand(o, text, sizeof(text)), col);
	}
	if (c->notes) {
		putchar('\n');
		put_text(c->notes, 0, 0);
	}
}
