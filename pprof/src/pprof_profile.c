/* SPDX-License-Identifier: MIT */
/* A profile being built: its string table, mappings, functions and
 * locations (each kept once, found again by hash), its samples encoded as
 * they come; pprof_profile_encode() writes the Profile message (profile.proto's
 * field numbers below). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ringside/pprof.h"

/* profile.proto: Profile */
enum {
	F_SAMPLE_TYPE = 1, F_SAMPLE = 2, F_MAPPING = 3, F_LOCATION = 4,
	F_FUNCTION = 5, F_STRING_TABLE = 6, F_TIME_NANOS = 9,
	F_DURATION_NANOS = 10, F_PERIOD_TYPE = 11, F_PERIOD = 12,
};
/* ValueType */
enum { VT_TYPE = 1, VT_UNIT = 2 };
/* Sample, Label */
enum { S_LOCATION_ID = 1, S_VALUE = 2, S_LABEL = 3 };
enum { L_KEY = 1, L_STR = 2, L_NUM = 3, L_NUM_UNIT = 4 };
/* Mapping */
enum {
	M_ID = 1, M_MEMORY_START = 2, M_MEMORY_LIMIT = 3, M_FILE_OFFSET = 4,
	M_FILENAME = 5, M_BUILD_ID = 6, M_HAS_FUNCTIONS = 7,
};
/* Location, Line */
enum { LOC_ID = 1, LOC_MAPPING_ID = 2, LOC_ADDRESS = 3, LOC_LINE = 4 };
enum { LINE_FUNCTION_ID = 1 };
/* Function */
enum { FN_ID = 1, FN_NAME = 2, FN_SYSTEM_NAME = 3, FN_FILENAME = 4 };

/* Open addressing: slot holds an entry's index + 1; hash[] is each
 * entry's hash, for growing. */
struct htab {
	uint32_t *slot;
	size_t cap;               /* a power of two, or 0 */
	uint64_t *hash;
	size_t nr;
	size_t hash_cap;
};

struct pmap {
	uint64_t start, limit, offset;
	int64_t file, build_id;
	int has_functions;
};

struct pfunc {
	int64_t name, file;
};

struct ploc {
	uint64_t mapping, address, function;
};

struct pprof {
	char **str;
	struct htab strings;
	struct pmap *maps;
	struct htab mappings;
	struct pfunc *funcs;
	struct htab functions;
	struct ploc *locs;
	struct htab locations;
	struct pdf_buf samples;   /* Profile field 2 entries */
	uint64_t nr_samples;
	int64_t vt[PPROF_MAX_VALUES][2];
	unsigned nr_vt;
	int64_t period_type[2];
	int have_period;
	int64_t period;
	int64_t time_nanos, duration_nanos;
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h *= 0xff51afd7ed558ccdull;
	return h ^ (h >> 33);
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ull;
	return h;
}

static int htab_grow(struct htab *t)
{
	size_t cap = t->cap ? t->cap * 2 : 1024, i;
	uint32_t *slot;

	slot = calloc(cap, sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	for (i = 0; i < t->nr; i++) {
		size_t at = t->hash[i] & (cap - 1);

		while (slot[at])
			at = (at + 1) & (cap - 1);
		slot[at] = (uint32_t)(i + 1);
	}
	free(t->slot);
	t->slot = slot;
	t->cap = cap;
	return 0;
}

/* Room for one more entry: its hash slot and hash[] element. */
static int htab_reserve(struct htab *t)
{
	if ((t->nr + 1) * 4 > t->cap * 3) {
		int err = htab_grow(t);

		if (err)
			return err;
	}
	if (t->nr == t->hash_cap) {
		size_t cap = t->hash_cap ? t->hash_cap * 2 : 1024;
		uint64_t *h = realloc(t->hash, cap * sizeof(*h));

		if (!h)
			return -ENOMEM;
		t->hash = h;
		t->hash_cap = cap;
	}
	return 0;
}

static void htab_fini(struct htab *t)
{
	free(t->slot);
	free(t->hash);
}

/* An array of @nr entries of @size bytes with room for one more: 16 at
 * first, doubled when full (at 16, 32, 64, ...). */
static int array_reserve(void *arrp, size_t nr, size_t size)
{
	void **arr = arrp;
	size_t cap;
	void *n;

	if (nr && (nr < 16 || (nr & (nr - 1))))
		return 0;
	cap = nr ? nr * 2 : 16;
	n = realloc(*arr, cap * size);
	if (!n)
		return -ENOMEM;
	*arr = n;
	return 0;
}

/* The entry of @t whose element of @items (@size bytes each) @eq takes
 * for @key, as its index + 1; 0: none. */
static uint32_t htab_find(const struct htab *t, uint64_t h, const void *items,
			  size_t size, int (*eq)(const void *, const void *),
			  const void *key)
{
	size_t at;

	if (!t->cap)
		return 0;
	for (at = h & (t->cap - 1); t->slot[at]; at = (at + 1) & (t->cap - 1))
		if (eq((const char *)items + (t->slot[at] - 1) * size, key))
			return t->slot[at];
	return 0;
}

/* The entry equal to @item (@size bytes, as @eq compares them) in @t and
 * its array *@itemsp, added when new: its index + 1.  -E2BIG past @max
 * entries, -ENOMEM. */
static int64_t intern(struct htab *t, uint64_t h, void *itemsp, size_t size,
		      size_t max, int (*eq)(const void *, const void *),
		      const void *item)
{
	void **items = itemsp;
	uint32_t id = htab_find(t, h, *items, size, eq, item);
	size_t at;
	int err;

	if (id)
		return id;
	if (t->nr >= max)
		return -E2BIG;
	err = htab_reserve(t);
	if (!err)
		err = array_reserve(itemsp, t->nr, size);
	if (err)
		return err;
	memcpy((char *)*items + t->nr * size, item, size);
	for (at = h & (t->cap - 1); t->slot[at]; at = (at + 1) & (t->cap - 1))
		;
	t->slot[at] = (uint32_t)(t->nr + 1);
	t->hash[t->nr] = h;
	return (int64_t)++t->nr;
}

static int str_eq(const void *item, const void *key)
{
	return !strcmp(*(char *const *)item, *(char *const *)key);
}

static int map_eq(const void *item, const void *key)
{
	const struct pmap *a = item, *b = key;

	return a->start == b->start && a->limit == b->limit &&
	       a->offset == b->offset && a->file == b->file &&
	       a->build_id == b->build_id &&
	       a->has_functions == b->has_functions;
}

static int func_eq(const void *item, const void *key)
{
	const struct pfunc *a = item, *b = key;

	return a->name == b->name && a->file == b->file;
}

static int loc_eq(const void *item, const void *key)
{
	const struct ploc *a = item, *b = key;

	return a->mapping == b->mapping && a->address == b->address;
}

int pprof_profile_new(struct pprof **pp)
{
	struct pprof *p;

	*pp = NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	pdf_buf_init(&p->samples);
	if (pprof_profile_string(p, "") != 0) {
		pprof_profile_free(p);
		return -ENOMEM;
	}
	*pp = p;
	return 0;
}

void pprof_profile_free(struct pprof *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->strings.nr; i++)
		free(p->str[i]);
	free(p->str);
	htab_fini(&p->strings);
	free(p->maps);
	htab_fini(&p->mappings);
	free(p->funcs);
	htab_fini(&p->functions);
	free(p->locs);
	htab_fini(&p->locations);
	pdf_buf_fini(&p->samples);
	free(p);
}

int64_t pprof_profile_string(struct pprof *p, const char *s)
{
	struct htab *t = &p->strings;
	uint64_t h;
	uint32_t id;
	int64_t ret;
	char *dup;

	if (!s)
		return -EINVAL;
	h = str_hash(s);
	id = htab_find(t, h, p->str, sizeof(*p->str), str_eq, &s);
	if (id)
		return id - 1;
	dup = strdup(s);
	if (!dup)
		return -ENOMEM;
	ret = intern(t, h, &p->str, sizeof(*p->str), PPROF_MAX_STRINGS, str_eq,
		     &dup);
	if (ret < 0)
		free(dup);
	return ret < 0 ? ret : ret - 1;
}

int pprof_profile_sample_type(struct pprof *p, const char *type,
			      const char *unit)
{
	int64_t t, u;

	if (p->nr_vt == PPROF_MAX_VALUES || p->nr_samples)
		return -E2BIG;
	t = pprof_profile_string(p, type);
	u = t < 0 ? t : pprof_profile_string(p, unit);
	if (t < 0 || u < 0)
		return (int)(t < 0 ? t : u);
	p->vt[p->nr_vt][0] = t;
	p->vt[p->nr_vt][1] = u;
	p->nr_vt++;
	return 0;
}

int pprof_profile_set_period(struct pprof *p, const char *type,
			     const char *unit, int64_t period)
{
	int64_t t, u;

	p->have_period = 0;
	p->period = period;
	if (!type)
		return 0;
	t = pprof_profile_string(p, type);
	u = t < 0 ? t : pprof_profile_string(p, unit ? unit : "");
	if (t < 0 || u < 0)
		return (int)(t < 0 ? t : u);
	p->period_type[0] = t;
	p->period_type[1] = u;
	p->have_period = 1;
	return 0;
}

void pprof_profile_set_time(struct pprof *p, int64_t time_nanos,
			    int64_t duration_nanos)
{
	p->time_nanos = time_nanos;
	p->duration_nanos = duration_nanos;
}

int64_t pprof_profile_mapping(struct pprof *p, uint64_t start,
			      uint64_t limit, uint64_t offset,
			      const char *file, const char *build_id,
			      int has_functions)
{
	struct htab *t = &p->mappings;
	struct pmap m = { start, limit, offset, 0, 0, !!has_functions };
	uint64_t h;

	m.file = pprof_profile_string(p, file ? file : "");
	if (m.file < 0)
		return m.file;
	m.build_id = pprof_profile_string(p, build_id ? build_id : "");
	if (m.build_id < 0)
		return m.build_id;
	h = mix(mix(mix(mix(mix(start, limit), offset), (uint64_t)m.file),
		    (uint64_t)m.build_id), (uint64_t)m.has_functions);
	return intern(t, h, &p->maps, sizeof(*p->maps), PPROF_MAX_MAPPINGS,
		      map_eq, &m);
}

int64_t pprof_profile_function(struct pprof *p, const char *name,
			       const char *file)
{
	struct htab *t = &p->functions;
	struct pfunc f;
	uint64_t h;

	if (!name)
		return -EINVAL;
	f.name = pprof_profile_string(p, name);
	if (f.name < 0)
		return f.name;
	f.file = pprof_profile_string(p, file ? file : "");
	if (f.file < 0)
		return f.file;
	h = mix((uint64_t)f.name, (uint64_t)f.file);
	return intern(t, h, &p->funcs, sizeof(*p->funcs), PPROF_MAX_FUNCTIONS,
		      func_eq, &f);
}

int64_t pprof_profile_location(struct pprof *p, uint64_t mapping,
			       uint64_t address, uint64_t function)
{
	struct htab *t = &p->locations;
	struct ploc l = { mapping, address, function };
	uint64_t h = mix(mapping, address);

	return intern(t, h, &p->locs, sizeof(*p->locs), PPROF_MAX_LOCATIONS,
		      loc_eq, &l);
}

int pprof_profile_sample(struct pprof *p, const uint64_t *locs,
			 size_t nr_locs, const int64_t *values,
			 size_t nr_values, const struct pprof_label *labels,
			 size_t nr_labels)
{
	struct pdf_buf msg, lab;
	uint64_t v[PPROF_MAX_VALUES];
	int64_t idx[PPROF_MAX_LABELS][3];
	size_t i;
	int err = 0;

	if (nr_values != p->nr_vt || nr_labels > PPROF_MAX_LABELS ||
	    nr_locs > PPROF_MAX_FRAMES || (nr_locs && !locs) ||
	    (nr_labels && !labels))
		return -EINVAL;
	/* the strings first: a sample is added whole or not at all */
	for (i = 0; i < nr_labels; i++) {
		if (!labels[i].key)
			return -EINVAL;
		idx[i][0] = pprof_profile_string(p, labels[i].key);
		idx[i][1] = labels[i].str ? pprof_profile_string(p, labels[i].str) : 0;
		idx[i][2] = labels[i].unit ? pprof_profile_string(p, labels[i].unit) : 0;
		if (idx[i][0] < 0 || idx[i][1] < 0 || idx[i][2] < 0)
			return (int)(idx[i][0] < 0 ? idx[i][0] :
				     idx[i][1] < 0 ? idx[i][1] : idx[i][2]);
	}
	for (i = 0; i < nr_values; i++)
		v[i] = (uint64_t)values[i];
	pdf_buf_init(&msg);
	pdf_buf_init(&lab);
	pprof_pb_packed(&msg, S_LOCATION_ID, locs, nr_locs);
	pprof_pb_packed(&msg, S_VALUE, v, nr_values);
	for (i = 0; i < nr_labels; i++) {
		lab.len = 0;
		pprof_pb_uint(&lab, L_KEY, (uint64_t)idx[i][0]);
		if (labels[i].str) {
			pprof_pb_uint(&lab, L_STR, (uint64_t)idx[i][1]);
		} else {
			pprof_pb_uint(&lab, L_NUM, (uint64_t)labels[i].num);
			if (labels[i].unit)
				pprof_pb_uint(&lab, L_NUM_UNIT, (uint64_t)idx[i][2]);
		}
		pprof_pb_bytes(&msg, S_LABEL, lab.data, lab.len);
	}
	if (msg.err || lab.err) {
		err = -ENOMEM;
	} else {
		size_t before = p->samples.len;

		pprof_pb_bytes(&p->samples, F_SAMPLE, msg.data, msg.len);
		if (p->samples.err) {
			/* keep what was there: the profile stays whole */
			p->samples.len = before;
			p->samples.err = 0;
			err = -ENOMEM;
		} else {
			p->nr_samples++;
		}
	}
	pdf_buf_fini(&msg);
	pdf_buf_fini(&lab);
	return err;
}

void pprof_profile_counts(const struct pprof *p,
			  struct pprof_profile_counts *c)
{
	c->samples = p->nr_samples;
	c->strings = (uint32_t)p->strings.nr;
	c->mappings = (uint32_t)p->mappings.nr;
	c->functions = (uint32_t)p->functions.nr;
	c->locations = (uint32_t)p->locations.nr;
}

static void value_type(struct pdf_buf *out, struct pdf_buf *m, uint32_t field,
		       const int64_t vt[2])
{
	m->len = 0;
	pprof_pb_uint(m, VT_TYPE, (uint64_t)vt[0]);
	pprof_pb_uint(m, VT_UNIT, (uint64_t)vt[1]);
	pprof_pb_bytes(out, field, m->data, m->len);
}

/* A varint field only when not 0, as proto3 writes them. */
static void opt_uint(struct pdf_buf *b, uint32_t field, uint64_t v)
{
	if (v)
		pprof_pb_uint(b, field, v);
}

int pprof_profile_encode(const struct pprof *p, struct pdf_buf *out)
{
	struct pdf_buf m, line;
	size_t i;

	pdf_buf_init(&m);
	pdf_buf_init(&line);
	for (i = 0; i < p->nr_vt; i++)
		value_type(out, &m, F_SAMPLE_TYPE, p->vt[i]);
	pdf_buf_add(out, p->samples.data, p->samples.len);
	for (i = 0; i < p->mappings.nr; i++) {
		const struct pmap *e = &p->maps[i];

		m.len = 0;
		pprof_pb_uint(&m, M_ID, i + 1);
		opt_uint(&m, M_MEMORY_START, e->start);
		opt_uint(&m, M_MEMORY_LIMIT, e->limit);
		opt_uint(&m, M_FILE_OFFSET, e->offset);
		opt_uint(&m, M_FILENAME, (uint64_t)e->file);
		opt_uint(&m, M_BUILD_ID, (uint64_t)e->build_id);
		opt_uint(&m, M_HAS_FUNCTIONS, (uint64_t)e->has_functions);
		pprof_pb_bytes(out, F_MAPPING, m.data, m.len);
	}
	for (i = 0; i < p->locations.nr; i++) {
		const struct ploc *e = &p->locs[i];

		m.len = 0;
		pprof_pb_uint(&m, LOC_ID, i + 1);
		opt_uint(&m, LOC_MAPPING_ID, e->mapping);
		opt_uint(&m, LOC_ADDRESS, e->address);
		if (e->function) {
			line.len = 0;
			pprof_pb_uint(&line, LINE_FUNCTION_ID, e->function);
			pprof_pb_bytes(&m, LOC_LINE, line.data, line.len);
		}
		pprof_pb_bytes(out, F_LOCATION, m.data, m.len);
	}
	for (i = 0; i < p->functions.nr; i++) {
		const struct pfunc *e = &p->funcs[i];

		m.len = 0;
		pprof_pb_uint(&m, FN_ID, i + 1);
		opt_uint(&m, FN_NAME, (uint64_t)e->name);
		opt_uint(&m, FN_SYSTEM_NAME, (uint64_t)e->name);
		opt_uint(&m, FN_FILENAME, (uint64_t)e->file);
		pprof_pb_bytes(out, F_FUNCTION, m.data, m.len);
	}
	for (i = 0; i < p->strings.nr; i++)
		pprof_pb_bytes(out, F_STRING_TABLE, p->str[i], strlen(p->str[i]));
	opt_uint(out, F_TIME_NANOS, (uint64_t)p->time_nanos);
	opt_uint(out, F_DURATION_NANOS, (uint64_t)p->duration_nanos);
	if (p->have_period)
		value_type(out, &m, F_PERIOD_TYPE, p->period_type);
	opt_uint(out, F_PERIOD, (uint64_t)p->period);
	pdf_buf_fini(&m);
	pdf_buf_fini(&line);
	return out->err || m.err || line.err ? -ENOMEM : 0;
}
