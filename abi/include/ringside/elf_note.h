/* SPDX-License-Identifier: MIT */
/*
 * ELF notes (the gABI's note section / PT_NOTE segment) and the GNU build
 * id in them: the one walker every part of ringside reads them with, the
 * static guest agent included.  Header only: no allocation, nothing from
 * the C library but memcpy and memcmp.
 *
 * A note is a 12-byte header (namesz, descsz, type: host-endian u32, as
 * Elf64_Nhdr), the name, then the desc, each padded to the notes'
 * alignment.  The bytes are untrusted (a guest's kernel, a file on disk):
 * every size is checked against what is left before it is used, without
 * arithmetic that can wrap.
 */
#ifndef RINGSIDE_ELF_NOTE_H
#define RINGSIDE_ELF_NOTE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define RS_NT_GNU_BUILD_ID  3u
#define RS_ELF_NOTE_HDR     12u   /* sizeof(Elf64_Nhdr) */

/* One note; @name and @desc point into the notes walked. */
struct rs_elf_note {
	uint32_t namesz, descsz, type;
	const uint8_t *name;
	const uint8_t *desc;
};

enum rs_elf_note_err {
	RS_ELF_NOTE_NONE      = -1,  /* no GNU build id note */
	RS_ELF_NOTE_MALFORMED = -2,  /* a note runs past the end */
	RS_ELF_NOTE_SIZE      = -3,  /* GNU build id notes, none of a size taken */
};

/* Bytes that pad @size to @align (a power of 2); never wraps. */
static inline size_t rs_elf_note_pad(uint32_t size, size_t align)
{
	return (align - (size & (align - 1))) & (align - 1);
}

/*
 * The note at *@off of the @len bytes at @notes into @n, *@off moved past
 * it.  Name and desc are each padded to @align bytes: 8 when @align is 8,
 * else 4 (pass a PT_NOTE's p_align, or 4 for a kernel's notes).  1 a note;
 * 0 the end (fewer than RS_ELF_NOTE_HDR bytes left); RS_ELF_NOTE_MALFORMED
 * when its name or desc, padded, runs past @len (then stop: nothing after
 * it can be found).
 *
 * With 8, this is how ringside has always read 8-aligned segments (both
 * sizes padded to 8).  The gABI layout that linkers write for them (GNU
 * property notes) starts desc at the next 8-byte boundary counted from
 * the note's start, 4 bytes earlier for "GNU"; such notes read as
 * malformed or misplaced here.  Build ids live in 4-aligned segments.
 */
static inline int rs_elf_note_next(const void *notes, size_t len, size_t align,
				   size_t *off, struct rs_elf_note *n)
{
	const uint8_t *p = (const uint8_t *)notes;
	uint32_t h[3];
	size_t left, name_pad, desc_pad;

	align = align == 8 ? 8 : 4;
	if (*off > len || len - *off < RS_ELF_NOTE_HDR)
		return 0;
	memcpy(h, p + *off, sizeof(h));
	left = len - *off - RS_ELF_NOTE_HDR;
	name_pad = rs_elf_note_pad(h[0], align);
	if (h[0] > left || name_pad > left - h[0])
		return RS_ELF_NOTE_MALFORMED;
	left -= h[0] + name_pad;
	desc_pad = rs_elf_note_pad(h[1], align);
	if (h[1] > left || desc_pad > left - h[1])
		return RS_ELF_NOTE_MALFORMED;
	n->namesz = h[0];
	n->descsz = h[1];
	n->type = h[2];
	n->name = p + *off + RS_ELF_NOTE_HDR;
	n->desc = n->name + h[0] + name_pad;
	*off += RS_ELF_NOTE_HDR + h[0] + name_pad + h[1] + desc_pad;
	return 1;
}

/* 1 when @n is a GNU build id note: type NT_GNU_BUILD_ID, name "GNU". */
static inline int rs_elf_note_is_buildid(const struct rs_elf_note *n)
{
	return n->type == RS_NT_GNU_BUILD_ID && n->namesz == 4 &&
	       !memcmp(n->name, "GNU", 4);
}

/*
 * The GNU build id of @len bytes of notes (@align as rs_elf_note_next's)
 * into @id: the first GNU build id note of 1 to *@id_len bytes, as the
 * kernel takes a file's build id (build_id_parse()); notes of other sizes
 * are passed over.  0 and its size in *@id_len; RS_ELF_NOTE_NONE,
 * RS_ELF_NOTE_SIZE (only such notes), RS_ELF_NOTE_MALFORMED (a note ran
 * past the end before one was found).
 */
static inline int rs_elf_note_buildid(const void *notes, size_t len,
				      size_t align, uint8_t *id, size_t *id_len)
{
	struct rs_elf_note n;
	size_t off = 0;
	int r, seen = 0;

	while ((r = rs_elf_note_next(notes, len, align, &off, &n)) > 0) {
		if (!rs_elf_note_is_buildid(&n))
			continue;
		if (!n.descsz || n.descsz > *id_len) {
			seen = 1;
			continue;
		}
		memcpy(id, n.desc, n.descsz);
		*id_len = n.descsz;
		return 0;
	}
	if (r < 0)
		return r;
	return seen ? RS_ELF_NOTE_SIZE : RS_ELF_NOTE_NONE;
}

#endif /* RINGSIDE_ELF_NOTE_H */
