/* SPDX-License-Identifier: MIT */
/*
 * The region file of a libvirt domain: its name and the <shmem> device
 * that maps it; created by the hook at "prepare", removed at "release".
 * See docs/operator-guide.md, "Security model".
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ringside/domain_hook.h"

#define REGION_MODE 0660
#define PATH_LEN    4096u

/* @dir/@name into @path (PATH_LEN bytes): 0, -EINVAL without both,
 * -ENAMETOOLONG. */
static int region_path(char *path, const char *dir, const char *name)
{
	int n;

	if (!dir || !name)
		return -EINVAL;
	n = snprintf(path, PATH_LEN, "%s/%s", dir, name);
	return n < 0 || (size_t)n >= PATH_LEN ? -ENAMETOOLONG : 0;
}

int dom_shm_name_check(const char *name)
{
	size_t i, n = name ? strlen(name) : 0;

	if (!n || n > DOM_NAME_MAX || name[0] == '.' || name[0] == '-')
		return -dome_name;
	for (i = 0; i < n; i++) {
		char ch = name[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' ||
		      ch == '+' || ch == '-'))
			return -dome_name;
	}
	return 0;
}

int dom_shm_name(const char *domain, char *buf, size_t len)
{
	int n;

	if (dom_shm_name_check(domain))
		return -dome_name;
	n = snprintf(buf, len, "%s%s", DOM_SHM_PREFIX, domain);
	return (n < 0 || (size_t)n >= len) ? -dome_name : 0;
}

int dom_shm_xml(const char *shm_name, uint64_t size, char *buf, size_t len)
{
	int n;

	/* libvirt writes sizes back in MiB; writing them so keeps the device
	 * XML identical across enable, dumpxml and detach.  role='master'
	 * (QEMU's master=on): QEMU migrates the region with the guest's
	 * memory; without it save, managedsave and migration are refused. */
	n = snprintf(buf, len, "<shmem name='%s' role='master'>"
		     "<model type='ivshmem-plain'/>"
		     "<size unit='M'>%" PRIu64 "</size></shmem>", shm_name,
		     size >> 20);
	return (n < 0 || (size_t)n >= len) ? -dome_invalid : n;
}

/* Lay the region out in @fd (already c->size bytes) and switch it on. */
static int layout(int fd, const struct dom_cfg *c)
{
	struct rs_region_params p;
	void *mem;
	int err;

	mem = mmap(NULL, c->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED)
		return -errno;
	dom_cfg_params(c, &p);
	/* dom_cfg_check() found this layout valid: a refusal is ours */
	err = rs_region_layout(mem, c->size, &p) < 0 ||
	      rs_region_enable(mem) < 0 ? -dome_internal : 0;
	munmap(mem, c->size);
	return err;
}

int dom_shm_create(const char *dir, const char *shm_name,
		   const struct dom_cfg *c, gid_t gid)
{
	char path[PATH_LEN], tmp[PATH_LEN];
	int fd, err, n;

	if (!c || !c->size)
		return -EINVAL;
	err = region_path(path, dir, shm_name);
	if (err)
		return err;
	n = snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, shm_name);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return -ENAMETOOLONG;
	/* mkostemp: O_EXCL, mode 0600; nobody else can have opened it. */
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* Reserve the pages now: a full /dev/shm must fail here, not as a
	 * SIGBUS in QEMU when the guest first writes a page. */
	err = -posix_fallocate(fd, 0, (off_t)c->size);
	if (!err)
		err = layout(fd, c);
	if (!err && fchown(fd, 0, gid))
		err = -errno;
	if (!err && fchmod(fd, REGION_MODE))
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	close(fd);
	return err;
}

int dom_shm_remove(const char *dir, const char *shm_name)
{
	char path[PATH_LEN];
	struct stat st;
	int err = region_path(path, dir, shm_name);

	if (err)
		return err;
	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISREG(st.st_mode))
		return -ENODEV;
	return unlink(path) ? -errno : 0;
}

/* Why @st is no region file dom_shm_create() made for @gid and @size
 * (0: any power of two), or NULL. */
static const char *not_ours(const struct stat *st, gid_t gid, uint64_t size)
{
	uint64_t n = (uint64_t)st->st_size;

	if (!S_ISREG(st->st_mode))
		return "not a regular file";
	if (st->st_uid != 0)
		return "not owned by root";
	if (st->st_gid != gid)
		return "not of the region's group";
	if ((st->st_mode & 07777) != REGION_MODE)
		return "not mode 0660";
	if (st->st_nlink != 1)
		return "linked under another name too";
	if (size ? n != size : !n || (n & (n - 1)))
		return "not the region's size";
	return NULL;
}

int dom_shm_open_region(const char *dir, const char *shm_name, gid_t gid,
			uint64_t size, struct stat *st, const char **why)
{
	char path[PATH_LEN];
	int fd, n;

	*why = NULL;
	if (!st)
		return -EINVAL;
	n = region_path(path, dir, shm_name);
	if (n)
		return n;
	/* never through a link; O_NONBLOCK: a FIFO must not hang the hook */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == ELOOP) {
		memset(st, 0, sizeof(*st));
		if (!lstat(path, st) && S_ISLNK(st->st_mode)) {
			*why = "a symbolic link";
			return -dome_not_ours;
		}
	}
	if (fd < 0)
		return -errno;
	if (fstat(fd, st)) {
		n = -errno;
		close(fd);
		return n;
	}
	*why = not_ours(st, gid, size);
	if (*why) {
		close(fd);
		return -dome_not_ours;
	}
	return fd;
}

int dom_shm_remove_region(const char *dir, const char *shm_name,
			  const struct stat *st)
{
	char path[PATH_LEN];
	struct stat now;
	int err;

	if (!st)
		return -EINVAL;
	err = region_path(path, dir, shm_name);
	if (err)
		return err;
	if (lstat(path, &now))
		return errno == ENOENT ? 0 : -errno;
	if (now.st_dev != st->st_dev || now.st_ino != st->st_ino)
		return -dome_not_ours;   /* another file took its name */
	return unlink(path) ? -errno : 0;
}

int dom_shm_create_group(const char *dir, const char *shm_name,
			 const struct dom_cfg *c, const char *group)
{
	struct group *gr = getgrnam(group ? group : DOM_HOOK_GROUP);

	return gr ? dom_shm_create(dir, shm_name, c, gr->gr_gid) : -ENOENT;
}
