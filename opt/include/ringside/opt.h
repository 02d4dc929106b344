/* SPDX-License-Identifier: MIT */
/*
 * Command-line options from one table per command.  The table drives both
 * the parser and --help: an option cannot be parsed without being listed
 * in the help, nor listed without being parsed.  Used by `ringside` (cli/)
 * and by `ringside-agent` (guest-agent/linux/), which links this library
 * alone.
 *
 * A command lists its options as an array of struct opt built with the
 * OPT_* macros and ended by OPT_END, and describes itself in a struct
 * opt_cmd (usage forms, operands, prose).  opt_parse() reads argv as GNU
 * getopt_long() does: options and operands in any order (operands move to
 * the end of argv, options keep their order before them), "--name value",
 * "--name=value", a unique prefix of a long name, "-x value", "-xvalue",
 * clustered flags ("-qs"), and "--" ending the options.  Every value is
 * checked against its option's kind and range before it is stored.
 *
 * This is user-interface code: --help goes to stdout, a usage error to
 * stderr as "PROG: what is wrong" and "Try 'PROG --help'."; exiting is
 * left to main().
 *
 *	const struct opt opts[] = {
 *		OPT_STRING('o', "output", &o->output, "FILE",
 *			   "the perf.data file to write"),
 *		OPT_U32('i', "interval", &o->interval_ms, "MS", 1, 60000,
 *			"milliseconds", "wait at most MS between passes"),
 *		OPT_FLAG('q', "quiet", &o->quiet, "no summary"),
 *		OPT_END
 *	};
 */
#ifndef RINGSIDE_OPT_H
#define RINGSIDE_OPT_H

#include <stdarg.h>
#include <stdint.h>

/* The exit status of bad usage, in every ringside program. */
#define OPT_EXIT_USAGE 2
/* opt_parse() printed --help: the program exits 0. */
#define OPT_HELP (-1)
/* max_args of a command whose operands it checks itself. */
#define OPT_ANY_ARGS UINT32_MAX

enum opt_kind {
	OPTK_END = 0,
	OPTK_FLAG,     /* no value; *(int *)dest = 1 */
	OPTK_STRING,   /* *(const char **)dest = the value */
	OPTK_LIST,     /* repeatable: dest is a const char *[max], *count given */
	OPTK_U32,      /* a decimal number in min..max; *(uint32_t *)dest */
	OPTK_POW2,     /* a power of two in min..max (0 too when min is 0) */
	OPTK_SECONDS,  /* seconds > 0 and <= max, fractions allowed; *(double *)dest */
	OPTK_ENUM,     /* one of names[]: its index into *(uint32_t *)dest */
	OPTK_FN,       /* fn() checks and stores the value */
	OPTK_HELP,     /* -h, --help: added to every table by opt_parse */
};

struct opt;

/* OPTK_FN: store @value where @o says (o->dest, o->name); NULL if it is
 * good, else what it should be ("a number of rings from 1 to 48"). */
typedef const char *(*opt_fn)(const struct opt *o, const char *value);

struct opt {
	const char *name;          /* the long name, without "--" */
	char key;                  /* the short name; 0: none */
	enum opt_kind kind;
	const char *arg;           /* the value's name in --help: "FILE", "N" */
	const char *help;          /* one paragraph; "{min}" and "{max}" show
				    * the option's range */
	void *dest;
	uint32_t min, max;         /* U32, POW2; max also for SECONDS and LIST */
	const char *unit;          /* U32 in messages ("milliseconds"); NULL:
				    * "a number" */
	const char *const *names;  /* ENUM: the values, NULL-ended, by index */
	uint32_t *count;           /* LIST: how many were given */
	opt_fn fn;                 /* FN */
};

/* (1 ? p : (T *)0) does not compile (-Werror) unless p points to T. */
#define OPT_DEST_(type, p) ((void *)(1 ? (p) : (type *)0))

#define OPT_FLAG(k, l, d, h) \
	{ .name = (l), .key = (k), .kind = OPTK_FLAG, .help = (h), \
	  .dest = OPT_DEST_(int, d) }
#define OPT_STRING(k, l, d, a, h) \
	{ .name = (l), .key = (k), .kind = OPTK_STRING, .arg = (a), \
	  .help = (h), .dest = OPT_DEST_(const char *, d) }
/* @d: an array of @n const char *; @c: a uint32_t counting them. */
#define OPT_LIST(k, l, d, c, n, a, h) \
	{ .name = (l), .key = (k), .kind = OPTK_LIST, .arg = (a), \
	  .help = (h), .dest = OPT_DEST_(const char *, d), .count = (c), \
	  .max = (n) }
#define OPT_U32(k, l, d, a, lo, hi, u, h) \
	{ .name = (l), .key = (k), .kind = OPTK_U32, .arg = (a), .help = (h), \
	  .dest = OPT_DEST_(uint32_t, d), .min = (lo), .max = (hi), .unit = (u) }
#define OPT_POW2(k, l, d, a, lo, hi, h) \
	{ .name = (l), .key = (k), .kind = OPTK_POW2, .arg = (a), .help = (h), \
	  .dest = OPT_DEST_(uint32_t, d), .min = (lo), .max = (hi) }
#define OPT_SECONDS(k, l, d, a, hi, h) \
	{ .name = (l), .key = (k), .kind = OPTK_SECONDS, .arg = (a), \
	  .help = (h), .dest = OPT_DEST_(double, d), .max = (hi) }
#define OPT_ENUM(k, l, d, a, v, h) \
	{ .name = (l), .key = (k), .kind = OPTK_ENUM, .arg = (a), .help = (h), \
	  .dest = OPT_DEST_(uint32_t, d), .names = (v) }
/* @ctx reaches @f as o->dest. */
#define OPT_FN(k, l, f, ctx, a, h) \
	{ .name = (l), .key = (k), .kind = OPTK_FN, .arg = (a), .help = (h), \
	  .dest = (ctx), .fn = (f) }
#define OPT_END { .name = 0 }

/* An operand, for --help. */
struct opt_arg {
	const char *name;          /* "FILE"; NULL ends the list */
	const char *help;
};

enum opt_flag {
	OPT_IN_ORDER = 1u << 0,    /* options end at the first operand, so
				    * that an operand "-x" stays one */
};

struct opt_cmd {
	const char *prog;          /* "ringside record": usage and messages */
	const char *usage;         /* the forms after PROG, one a line */
	const char *about;         /* what it does; lines are wrapped, "\n"
				    * breaks, leading spaces indent */
	const struct opt_arg *args; /* the operands; NULL: none to list */
	const struct opt *opts;    /* ended by OPT_END; -h, --help added */
	const char *notes;         /* after the options: exit status, ... */
	unsigned flags;            /* enum opt_flag */
	uint32_t min_args;         /* operands wanted; fewer: @missing */
	uint32_t max_args;         /* more: "'X' is extra"; OPT_ANY_ARGS */
	const char *missing;       /* "which file? give ..." */
};

/*
 * Parse @argv[1 .. @argc - 1] (argv[0] names the command) against @c and
 * store every value.  Returns 0 with the operands at argv[*first .. argc-1],
 * OPT_HELP after printing the help (exit 0), or OPT_EXIT_USAGE after
 * printing what is wrong.  NULL @c or @argv is OPT_EXIT_USAGE.
 */
int opt_parse(const struct opt_cmd *c, int argc, char **argv, int *first);

/* A decimal number of at most @max: digits only, no sign, blank or
 * anything after them.  0, or -EINVAL (@out untouched). */
int opt_u32(const char *s, uint32_t max, uint32_t *out);

/* The help of @c on stdout: usage forms, about, operands, options
 * (with -h, --help), notes; at most 80 columns. */
void opt_help(const struct opt_cmd *c);

/* "PROG: message" and "Try 'PROG --help'." on stderr; returns
 * OPT_EXIT_USAGE. */
int opt_usage(const char *prog, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int opt_vusage(const char *prog, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

#endif /* RINGSIDE_OPT_H */
