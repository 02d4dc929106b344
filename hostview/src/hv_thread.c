/* SPDX-License-Identifier: MIT */
/*
 * Finding a VMM's threads: what each is from its name, and /proc's view
 * of a process's threads now.  /proc's lines are read as bytes: bounded,
 * parsed without trusting what the name in parentheses holds.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

int hv_thread_read_small(int dirfd, const char *path, char *buf, size_t cap)
{
	size_t len = 0;
	int fd;

	if (cap == 0)
		return -EINVAL;
	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	while (len < cap - 1) {
		ssize_t n = read(fd, buf + len, cap - 1 - len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			n = -errno;
			close(fd);
			return (int)n;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = 0;
	return (int)len;
}

/* "CPU N/ACCEL": N decimal without sign (at most 9 digits), ACCEL 1..7
 * letters or digits, nothing after. */
static int vcpu_name(const char *comm, size_t len, int32_t *vcpu, char *accel)
{
	size_t i = 4, digits = 0, a = 0;
	int32_t n = 0;

	if (len < 7 || memcmp(comm, "CPU ", 4))
		return 0;
	while (i < len && comm[i] >= '0' && comm[i] <= '9' && digits < 9) {
		n = n * 10 + (comm[i] - '0');
		i++;
		digits++;
	}
	if (!digits || i >= len || comm[i] != '/')
		return 0;
	for (i++; i < len; i++, a++)
		if (a >= 7 || !isalnum((unsigned char)comm[i]))
			return 0;
	if (!a)
		return 0;
	*vcpu = n;
	memcpy(accel, comm + len - a, a);
	accel[a] = 0;
	return 1;
}

int hv_thread_classify(const char *comm, int is_main, struct hv_thread_id *out)
{
	size_t len;

	if (!comm || !out)
		return HV_ERR(hve_invalid);
	len = strnlen(comm, HV_COMM_LEN - 1);
	memcpy(out->comm, comm, len);
	out->comm[len] = 0;
	out->accel[0] = 0;
	out->vcpu = -1;
	if (vcpu_name(out->comm, len, &out->vcpu, out->accel))
		out->kind = HV_KIND_VCPU;
	else if (is_main)
		out->kind = HV_KIND_EMULATOR;
	else if (len > 3 && !memcmp(out->comm, "IO ", 3))
		out->kind = HV_KIND_IO;
	else
		out->kind = HV_KIND_OTHER;
	return (int)out->kind;
}

/* The next space-separated field of @s..@end: its start, or NULL. */
static const char *next_field(const char *s, const char *end)
{
	while (s < end && *s != ' ')
		s++;
	while (s < end && *s == ' ')
		s++;
	return s < end ? s : NULL;
}

static int parse_u64(const char *s, const char *end, uint64_t *v)
{
	uint64_t n = 0;
	int digits = 0;

	while (s < end && *s >= '0' && *s <= '9') {
		if (n > (UINT64_MAX - 9) / 10)
			return HV_ERR(hve_short);
		n = n * 10 + (uint64_t)(*s - '0');
		s++;
		digits++;
	}
	if (!digits || (s < end && *s != ' ' && *s != '\n'))
		return HV_ERR(hve_short);
	*v = n;
	return 0;
}

int hv_thread_parse_stat(const char *text, size_t len, uint64_t *start,
			 char *state)
{
	const char *end, *p = NULL;

	if (!text || !start)
		return HV_ERR(hve_invalid);
	end = text + len;
	/* The name ends at the last ')': it may hold ')' itself. */
	for (const char *q = text; q < end; q++)
		if (*q == ')')
			p = q;
	if (!p || p + 2 >= end || p[1] != ' ')
		return HV_ERR(hve_short);
	p += 2;                              /* field 3, the state */
	if (state)
		*state = *p;
	for (int field = 3; field < 22; field++) {
		p = next_field(p, end);
		if (!p)
			return HV_ERR(hve_short);
	}
	return parse_u64(p, end, start);
}

static int read_thread(int taskfd, int32_t pid, int32_t tid,
		       struct hv_thread_id *t)
{
	char path[32], buf[1024];
	int n;

	snprintf(path, sizeof(path), "%d/comm", (int)tid);
	n = hv_thread_read_small(taskfd, path, buf, HV_COMM_LEN + 1);
	if (n < 0)
		return n;
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = 0;
	hv_thread_classify(buf, tid == pid, t);
	snprintf(path, sizeof(path), "%d/stat", (int)tid);
	n = hv_thread_read_small(taskfd, path, buf, sizeof(buf));
	if (n < 0)
		return n;
	if (hv_thread_parse_stat(buf, (size_t)n, &t->start, NULL))
		return -ESRCH;
	t->pid = pid;
	t->tid = tid;
	return 0;
}

static int32_t parse_tid(const char *name)
{
	long v = 0;

	if (!*name)
		return -1;
	for (; *name; name++) {
		if (*name < '0' || *name > '9' || v > 0x7fffffff / 10)
			return -1;
		v = v * 10 + (*name - '0');
	}
	return v > 0 && v <= 0x7fffffff ? (int32_t)v : -1;
}

int hv_thread_scan(const char *proc, int32_t pid, uint32_t kinds,
		   struct hv_thread_id *out, uint32_t max, uint32_t *found)
{
	char path[4096];
	struct dirent *de;
	uint32_t n = 0;
	int fd, dfd;
	DIR *d;

	if (pid <= 0 || !found || (max && !out))
		return HV_ERR(hve_invalid);
	*found = 0;
	if (snprintf(path, sizeof(path), "%s/%d/task", proc ? proc : "/proc",
		     (int)pid) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	dfd = dup(fd);
	d = dfd < 0 ? NULL : fdopendir(dfd);
	if (!d) {
		int err = -errno;

		if (dfd >= 0)
			close(dfd);
		close(fd);
		return err;
	}
	/* Bounded by the kernel's thread count: readdir of /proc ends. */
	while ((de = readdir(d))) {
		struct hv_thread_id t;
		int32_t tid = parse_tid(de->d_name);

		if (tid < 0)
			continue;
		memset(&t, 0, sizeof(t));
		if (read_thread(fd, pid, tid, &t))
			continue;            /* ended while we looked */
		if (!(t.kind & kinds))
			continue;
		if (n < max)
			out[n] = t;
		n++;
	}
	closedir(d);
	close(fd);
	*found = n;
	return 0;
}

int hv_thread_schedstat_parse(const char *text, size_t len,
			      struct hv_schedstat *out)
{
	const char *p, *end;
	uint64_t v[3];

	if (!text || !out)
		return HV_ERR(hve_invalid);
	end = text + len;
	p = text;
	for (int i = 0; i < 3; i++) {
		if (!p || parse_u64(p, end, &v[i]))
			return HV_ERR(hve_short);
		p = next_field(p, end);
	}
	out->run_ns = v[0];
	out->wait_ns = v[1];
	out->slices = v[2];
	return 0;
}

int hv_thread_schedstat_read(const char *proc, int32_t pid, int32_t tid,
			      struct hv_schedstat *out)
{
	char path[4096], buf[128];
	int n;

	if (pid <= 0 || tid <= 0 || !out)
		return HV_ERR(hve_invalid);
	if (snprintf(path, sizeof(path), "%s/%d/task/%d/schedstat",
		     proc ? proc : "/proc", (int)pid, (int)tid) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	n = hv_thread_read_small(AT_FDCWD, path, buf, sizeof(buf));
	if (n < 0)
		return n;
	return hv_thread_schedstat_parse(buf, (size_t)n, out);
}
