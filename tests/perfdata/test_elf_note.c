/* SPDX-License-Identifier: MIT */
/*
 * The ELF note walker and its GNU build id (abi/'s ringside/elf_note.h),
 * which perfdata, the Linux guest agent and introspect read notes with.
 * Every list is copied to a heap block of exactly its length, so that
 * ASan and valgrind see a read past the end.
 */
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "ringside/elf_note.h"

static const uint8_t id20[20] = { 0x15, 0xdf, 0xff, 0x32, 0x39, 0xaa, 0x7c,
	0x3b, 0x16, 0xa7, 0x1e, 0x6b, 0x2e, 0x3b, 0x6e, 0x40, 0x09, 0xda,
	0xb9, 0x98 };

struct list {
	uint8_t b[512];
	size_t len;
};

/* Append a note: the header, @name (@namesz bytes of it), @desc, each
 * padded with zeros to @align. */
static void add(struct list *l, uint32_t type, const char *name,
		uint32_t namesz, const void *desc, uint32_t descsz, size_t align)
{
	uint32_t h[3] = { namesz, descsz, type };

	memcpy(l->b + l->len, h, sizeof(h));
	l->len += sizeof(h);
	memset(l->b + l->len, 0, 64);
	memcpy(l->b + l->len, name, namesz);
	l->len += (namesz + align - 1) & ~(align - 1);
	memset(l->b + l->len, 0, 64);
	memcpy(l->b + l->len, desc, descsz);
	l->len += (descsz + align - 1) & ~(align - 1);
	ck_assert_uint_le(l->len, sizeof(l->b) - 128);
}

static void add_gnu(struct list *l, const void *id, uint32_t len)
{
	add(l, RS_NT_GNU_BUILD_ID, "GNU", 4, id, len, 4);
}

/* rs_elf_note_buildid() over the first @len bytes of @l, from a block of
 * exactly that size. */
static int buildid(const struct list *l, size_t len, uint8_t *id,
		   size_t *id_len)
{
	uint8_t *copy = malloc(len ? len : 1);
	int r;

	ck_assert_ptr_nonnull(copy);
	memcpy(copy, l->b, len);
	r = rs_elf_note_buildid(copy, len, 4, id, id_len);
	free(copy);
	return r;
}

START_TEST(rs_elf_note_buildid_one)
{
	struct list l = { .len = 0 };
	uint8_t id[20];
	size_t n = sizeof(id);

	add_gnu(&l, id20, 20);
	ck_assert_uint_eq(l.len, 36);
	ck_assert_int_eq(buildid(&l, l.len, id, &n), 0);
	ck_assert_uint_eq(n, 20);
	ck_assert_mem_eq(id, id20, 20);
	/* a shorter id (md5, 16 bytes), and one whose desc needs padding */
	l.len = 0;
	add_gnu(&l, id20, 16);
	n = sizeof(id);
	ck_assert_int_eq(buildid(&l, l.len, id, &n), 0);
	ck_assert_uint_eq(n, 16);
	l.len = 0;
	add_gnu(&l, id20, 9);
	n = sizeof(id);
	ck_assert_int_eq(buildid(&l, l.len, id, &n), 0);
	ck_assert_uint_eq(n, 9);
	ck_assert_mem_eq(id, id20, 9);
}
END_TEST

/* A kernel's notes: others before and after it (Xen's, Linux's). */
START_TEST(rs_elf_note_buildid_several)
{
	static const uint8_t other[7] = { 1, 2, 3, 4, 5, 6, 7 };
	static const uint8_t id2[20] = { 0xee };
	struct list l = { .len = 0 };
	uint8_t id[20];
	size_t n = sizeof(id);

	add(&l, 6, "Linux", 6, other, 4, 4);
	add(&l, 1, "Xen", 4, other, 7, 4);
	add(&l, 0x100, "", 0, other, 0, 4);
	add(&l, RS_NT_GNU_BUILD_ID, "Linux", 6, other, 7, 4); /* not GNU's */
	add_gnu(&l, id20, 20);
	add_gnu(&l, id2, 20);
	add(&l, 2, "Linux", 6, other, 3, 4);
	ck_assert_int_eq(buildid(&l, l.len, id, &n), 0);
	ck_assert_uint_eq(n, 20);
	ck_assert_mem_eq(id, id20, 20);   /* the first one */
}
END_TEST

/* Cut anywhere: never a read past the end; before the id is whole, no id. */
START_TEST(rs_elf_note_buildid_truncated)
{
	static const uint8_t other[5] = { 9, 9, 9, 9, 9 };
	struct list l = { .len = 0 };
	uint8_t id[20];
	size_t cut, n, before;
	int r;

	add(&l, 1, "Xen", 4, other, 5, 4);
	before = l.len;
	add_gnu(&l, id20, 20);
	for (cut = 0; cut < l.len; cut++) {
		n = sizeof(id);
		r = buildid(&l, cut, id, &n);
		if (cut < 12 || cut == before ||
		    (cut > before && cut - before < 12))
			ck_assert_int_eq(r, RS_ELF_NOTE_NONE);  /* no header left */
		else
			ck_assert_int_eq(r, RS_ELF_NOTE_MALFORMED);
		ck_assert_uint_eq(n, sizeof(id));
	}
	n = sizeof(id);
	ck_assert_int_eq(buildid(&l, l.len, id, &n), 0);
	/* bytes after the last note, fewer than a header: the end */
	n = sizeof(id);
	ck_assert_int_eq(buildid(&l, l.len + 11, id, &n), 0);
	/* nothing at all */
	n = sizeof(id);
	ck_assert_int_eq(rs_elf_note_buildid(NULL, 0, 4, id, &n), RS_ELF_NOTE_NONE);
}
END_TEST

/* Sizes that would wrap when padded or added: refused, never followed. */
START_TEST(rs_elf_note_buildid_overflow)
{
	static const uint32_t huge[] = { 0xffffffffu, 0xfffffffdu, 0xfffffffcu,
					 0x80000000u, 0x7fffffffu, 0x10000u };
	struct list l;
	uint8_t id[20];
	size_t i, n;

	for (i = 0; i < sizeof(huge) / sizeof(huge[0]); i++) {
		uint32_t h[3];

		l.len = 0;
		add(&l, 1, "Xen", 4, id20, 4, 4);
		add_gnu(&l, id20, 20);
		/* the first note's namesz, then its descsz */
		memcpy(h, l.b, sizeof(h));
		h[0] = huge[i];
		memcpy(l.b, h, sizeof(h));
		n = sizeof(id);
		ck_assert_int_eq(buildid(&l, l.len, id, &n), RS_ELF_NOTE_MALFORMED);
		h[0] = 4;
		h[1] = huge[i];
		memcpy(l.b, h, sizeof(h));
		n = sizeof(id);
		ck_assert_int_eq(buildid(&l, l.len, id, &n), RS_ELF_NOTE_MALFORMED);
		/* the build id note's descsz */
		h[1] = 4;
		memcpy(l.b, h, sizeof(h));
		memcpy(h, l.b + 20, sizeof(h));
		h[1] = huge[i];
		memcpy(l.b + 20, h, sizeof(h));
		n = sizeof(id);
		ck_assert_int_eq(buildid(&l, l.len, id, &n), RS_ELF_NOTE_MALFORMED);
	}
}
END_TEST

START_TEST(rs_elf_note_buildid_wrong_name)
{
	struct list l = { .len = 0 };
	uint8_t id[20];
	size_t n = sizeof(id);

	add(&l, RS_NT_GNU_BUILD_ID, "GNX", 4, id20, 20, 4);
	add(&l, RS_NT_GNU_BUILD_ID, "GNU", 3, id20, 20, 4);     /* no NUL */
	add(&l, RS_NT_GNU_BUILD_ID, "GNU\0", 5, id20, 20, 4);   /* too long */
	add(&l, RS_NT_GNU_BUILD_ID, "gnu", 4, id20, 20, 4);
	add(&l, 1, "GNU", 4, id20, 20, 4);                      /* ABI tag */
	add(&l, RS_NT_GNU_BUILD_ID, "", 0, id20, 20, 4);
	ck_assert_int_eq(buildid(&l, l.len, id, &n), RS_ELF_NOTE_NONE);
	ck_assert_uint_eq(n, sizeof(id));
}
END_TEST

/* Build ids of a size not taken are passed over, as the kernel does. */
START_TEST(rs_elf_note_buildid_size)
{
	static const uint8_t big[21] = { 0x21 };
	struct list l = { .len = 0 };
	uint8_t id[32];
	size_t n = 20;

	add_gnu(&l, big, 21);
	add_gnu(&l, big, 0);
	ck_assert_int_eq(buildid(&l, l.len, id, &n), RS_ELF_NOTE_SIZE);
	ck_assert_uint_eq(n, 20);
	add_gnu(&l, id20, 20);
	ck_assert_int_eq(buildid(&l, l.len, id, &n), 0);
	ck_assert_uint_eq(n, 20);
	ck_assert_mem_eq(id, id20, 20);
	/* the room given is the bound */
	n = 19;
	ck_assert_int_eq(buildid(&l, l.len, id, &n), RS_ELF_NOTE_SIZE);
	n = 21;
	ck_assert_int_eq(buildid(&l, l.len, id, &n), 0);
	ck_assert_uint_eq(n, 21);
	ck_assert_mem_eq(id, big, 21);
}
END_TEST

START_TEST(rs_elf_note_next_walk)
{
	static const uint8_t desc[6] = { 1, 2, 3, 4, 5, 6 };
	struct list l = { .len = 0 };
	struct rs_elf_note n;
	size_t off = 0;

	add(&l, 7, "Linux", 6, desc, 6, 4);
	add_gnu(&l, id20, 20);
	ck_assert_int_eq(rs_elf_note_next(l.b, l.len, 4, &off, &n), 1);
	ck_assert_uint_eq(n.type, 7);
	ck_assert_uint_eq(n.namesz, 6);
	ck_assert_uint_eq(n.descsz, 6);
	ck_assert_ptr_eq(n.name, l.b + 12);
	ck_assert_ptr_eq(n.desc, l.b + 20);
	ck_assert_uint_eq(off, 28);
	ck_assert_int_eq(rs_elf_note_is_buildid(&n), 0);
	ck_assert_int_eq(rs_elf_note_next(l.b, l.len, 4, &off, &n), 1);
	ck_assert_int_eq(rs_elf_note_is_buildid(&n), 1);
	ck_assert_ptr_eq(n.desc, l.b + 28 + 16);
	ck_assert_uint_eq(off, l.len);
	ck_assert_int_eq(rs_elf_note_next(l.b, l.len, 4, &off, &n), 0);
	ck_assert_uint_eq(off, l.len);
	/* an offset past the end is the end */
	off = l.len + 100;
	ck_assert_int_eq(rs_elf_note_next(l.b, l.len, 4, &off, &n), 0);
}
END_TEST

/* With 8, name and desc are each padded to 8; other values mean 4. */
START_TEST(rs_elf_note_next_align)
{
	struct list l = { .len = 0 };
	struct rs_elf_note n;
	uint8_t id[20];
	size_t off = 0, sz = sizeof(id);

	add(&l, 1, "Linux", 6, id20, 4, 8);
	add(&l, RS_NT_GNU_BUILD_ID, "GNU", 4, id20, 20, 8);
	ck_assert_uint_eq(l.len, 12 + 8 + 8 + 12 + 8 + 24);
	ck_assert_int_eq(rs_elf_note_next(l.b, l.len, 8, &off, &n), 1);
	ck_assert_uint_eq(off, 28);
	ck_assert_int_eq(rs_elf_note_next(l.b, l.len, 8, &off, &n), 1);
	ck_assert_ptr_eq(n.desc, l.b + 28 + 12 + 8);
	ck_assert_uint_eq(off, l.len);
	ck_assert_int_eq(rs_elf_note_buildid(l.b, l.len, 8, id, &sz), 0);
	ck_assert_mem_eq(id, id20, 20);
	/* the same bytes read as 4-aligned: the first desc ends early */
	sz = sizeof(id);
	ck_assert_int_ne(rs_elf_note_buildid(l.b, l.len, 4, id, &sz), 0);
	l.len = 0;
	add_gnu(&l, id20, 20);
	off = 0;
	ck_assert_int_eq(rs_elf_note_next(l.b, l.len, 0, &off, &n), 1);
	ck_assert_uint_eq(off, 36);
	off = 0;
	ck_assert_int_eq(rs_elf_note_next(l.b, l.len, 16, &off, &n), 1);
	ck_assert_uint_eq(off, 36);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("elf_note");
	TCase *tc = tcase_create("elf_note");

	tcase_add_test(tc, rs_elf_note_buildid_one);
	tcase_add_test(tc, rs_elf_note_buildid_several);
	tcase_add_test(tc, rs_elf_note_buildid_truncated);
	tcase_add_test(tc, rs_elf_note_buildid_overflow);
	tcase_add_test(tc, rs_elf_note_buildid_wrong_name);
	tcase_add_test(tc, rs_elf_note_buildid_size);
	tcase_add_test(tc, rs_elf_note_next_walk);
	tcase_add_test(tc, rs_elf_note_next_align);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
