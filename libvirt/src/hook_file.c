/* SPDX-License-Identifier: MIT */
/*
 * The file libvirtd runs: a script that execs the hook program.  A script
 * rather than the program itself, so that it can carry the group and be
 * recognised as ringside's by its mark.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ringside/domain_hook.h"
#include "ringside/io.h"

int dom_hook_file_is_ours(const char *path)
{
	char head[256];
	size_t n;
	FILE *f;

	if (!path || access(path, X_OK))
		return 0;
	f = fopen(path, "re");
	if (!f)
		return 0;
	n = fread(head, 1, sizeof(head) - 1, f);
	fclose(f);
	head[n] = '\0';
	return strstr(head, DOM_HOOK_MARK) != NULL;
}

int dom_hook_file_installed(void)
{
	return dom_hook_file_is_ours(DOM_HOOK_DIR "/" DOM_HOOK_SUB "/" DOM_HOOK_NAME) ||
	       dom_hook_file_is_ours(DOM_HOOK_DIR "/qemu");
}

int dom_hook_file_write(const char *path, const char *program,
			const char *group, const struct dom_hook_keep *keep)
{
	const char *cdir = keep ? keep->capture_dir : NULL;
	char tmp[PATH_MAX], opts[PATH_MAX + 96], script[3 * PATH_MAX];
	int fd, n, len, err;

	/* Single quotes around everything variable: no quote may be inside. */
	if (!path || !program || !group || program[0] != '/' ||
	    strchr(program, '\'') || strchr(group, '\'') ||
	    (cdir && (cdir[0] != '/' || strchr(cdir, '\''))))
		return -dome_invalid;
	n = snprintf(opts, sizeof(opts), "%s%s%s", cdir ? " --capture-dir '" : "",
		     cdir ? cdir : "", cdir ? "'" : "");
	if (n >= 0 && (size_t)n < sizeof(opts) && keep && keep->keep)
		n += snprintf(opts + n, sizeof(opts) - (size_t)n, " --keep %u",
			      keep->keep);
	if (n >= 0 && (size_t)n < sizeof(opts) && keep && keep->keep_mb)
		n += snprintf(opts + n, sizeof(opts) - (size_t)n,
			      " --keep-mb %" PRIu64, keep->keep_mb);
	if (n < 0 || (size_t)n >= sizeof(opts))
		return -ENAMETOOLONG;
	len = snprintf(script, sizeof(script), "#!/bin/sh\n"
		       DOM_HOOK_MARK " (written by 'ringside hook install').\n"
		       "# libvirt runs it with: DOMAIN OPERATION SUB-OPERATION EXTRA,\n"
		       "# and the domain XML on stdin.  See docs/operator-guide.md.\n"
		       "exec '%s' --group '%s'%s \"$@\"\n", program, group, opts);
	if (len < 0 || (size_t)len >= sizeof(script))
		return -ENAMETOOLONG;
	n = snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	err = rs_io_write_all(fd, script, (size_t)len);
	if (!err && fchmod(fd, 0755))
		err = -errno;
	if (!err)
		return rs_io_commit(fd, tmp, path);
	close(fd);
	unlink(tmp);
	return err;
}
