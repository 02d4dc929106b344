/* SPDX-License-Identifier: MIT */
/*
 * The guest kernel's symbols and build id into the region's sideband, once
 * after attach (see agent.h).  Only the lines perf reads for function
 * names are published: types T t W w (text, weak), plus _text, _stext and
 * _etext whatever their type; modules' lines keep their "\t[mod]".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ringside/elf_note.h"

#include "agent.h"

#define NOTES_MAX       (64u << 10)

static int read_small(const char *path, char *buf, size_t size, size_t *len)
{
	ssize_t n;
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while (got < size && (n = read(fd, buf + got, size - got)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			n = -errno;
			close(fd);
			return (int)n;
		}
		got += (size_t)n;
	}
	close(fd);
	*len = got;
	return 0;
}

int agent_ksyms_build_id(const char *notes_path, uint8_t *id, uint32_t max,
			 uint32_t *len)
{
	static uint8_t notes[NOTES_MAX];
	struct rs_elf_note note;
	size_t n = 0, off = 0;
	int err;

	*len = 0;
	err = read_small(notes_path, (char *)notes, sizeof(notes), &n);
	if (err)
		return err;
	/* the first GNU build id note decides: one of a size not taken is
	 * an error, not passed over */
	while ((err = rs_elf_note_next(notes, n, 4, &off, &note)) > 0) {
		if (!rs_elf_note_is_buildid(&note))
			continue;
		if (!note.descsz || note.descsz > max)
			return -EINVAL;
		memcpy(id, note.desc, note.descsz);
		*len = note.descsz;
		return 0;
	}
	return err ? -EINVAL : -ENOENT;
}

/* A line perf reads for a function name: "ADDR TYPE NAME[\t[MOD]]\n". */
static int wanted_line(const char *line, int *zero_addr)
{
	const char *sp = strchr(line, ' '), *name;
	size_t n;

	if (!sp || !sp[1] || sp[2] != ' ')
		return 0;
	name = sp + 3;
	n = strcspn(name, "\t\n");
	if (!strchr("TtWw", sp[1]) &&
	    !((n == 5 && !strncmp(name, "_text", 5)) ||
	      (n == 6 && !strncmp(name, "_stext", 6)) ||
	      (n == 6 && !strncmp(name, "_etext", 6))))
		return 0;
	*zero_addr = strspn(line, "0") == (size_t)(sp - line);
	return 1;
}

/* kernel.kptr_restrict: the value it had, or -errno. */
static int kptr_restrict_get(const char *path)
{
	char buf[16];
	size_t n = 0;
	int err = read_small(path, buf, sizeof(buf) - 1, &n);

	if (err)
		return err;
	buf[n] = '\0';
	return atoi(buf);
}

static int kptr_restrict_set(const char *path, int value)
{
	char buf[16];
	int fd, n, ret = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = snprintf(buf, sizeof(buf), "%d\n", value);
	if (write(fd, buf, (size_t)n) != n)
		ret = -errno;
	close(fd);
	return ret;
}

int agent_ksyms_publish(const struct rs_region *region,
			const struct agent_ksyms_paths *paths, uint64_t room,
			struct agent_ksyms *res)
{
	struct rs_sideband_writer w;
	char line[1024];
	FILE *f;
	int err, kptr;

	memset(res, 0, sizeof(*res));
	res->kptr_restrict = -1;
	res->build_id_err = agent_ksyms_build_id(paths->notes, res->build_id,
						 sizeof(res->build_id),
						 &res->build_id_len);
	/* Addresses as root: kptr_restrict 2 hides them from everybody, so
	 * lower it for the read and put it back after. */
	kptr = kptr_restrict_get(paths->kptr_restrict);
	res->kptr_restrict = kptr;
	if (kptr > 0 && kptr_restrict_set(paths->kptr_restrict, 0) == 0)
		res->kptr_lowered = 1;
	f = fopen(paths->kallsyms, "re");
	if (!f) {
		err = -errno;
		goto out;
	}
	err = rs_sideband_begin(region, &w);
	if (err) {
		fclose(f);
		err = err == -rse_absent ? -ENXIO : -EINVAL;
		goto out;
	}
	if (room && rs_sideband_limit(&w, room)) {
		rs_sideband_commit(&w, RS_SIDEBAND_KALLSYMS);
		fclose(f);
		err = -EINVAL;
		goto out;
	}
	while (fgets(line, sizeof(line), f)) {
		size_t n = strlen(line);
		int zero = 0;

		res->lines++;
		if (!n || line[n - 1] != '\n') {
			int ch;

			/* longer than any kallsyms line (the name limit is
			 * 511): skip the rest, count it */
			while ((ch = fgetc(f)) != EOF && ch != '\n')
				;
			res->skipped++;
			continue;
		}
		if (!wanted_line(line, &zero))
			continue;
		if (zero) {
			res->zero_addrs++;
			continue;
		}
		res->kept++;
		if (rs_sideband_append(&w, line, n) != 1)
			res->cut++;
	}
	if (ferror(f))
		res->read_err = -EIO;
	fclose(f);
	if (res->build_id_len)
		rs_sideband_set_build_id(&w, res->build_id, res->build_id_len);
	res->length = w.length;
	res->wanted = w.wanted;
	err = rs_sideband_commit(&w, RS_SIDEBAND_KALLSYMS) ? -EINVAL : 0;
out:
	if (res->kptr_lowered)
		kptr_restrict_set(paths->kptr_restrict, kptr);
	return err;
}
