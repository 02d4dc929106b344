/* SPDX-License-Identifier: MIT */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "domain_cmd.h"

int dom_cmd_shmem_xml(const char *shm_name, uint64_t size, char *buf,
		      size_t len)
{
	int n;

	/* libvirt writes sizes back in MiB; writing them so keeps the device
	 * XML identical across enable, dumpxml and detach. */
	n = snprintf(buf, len, "<shmem name='%s'><model type='ivshmem-plain'/>"
		     "<size unit='M'>%" PRIu64 "</size></shmem>", shm_name,
		     size >> 20);
	return (n < 0 || (size_t)n >= len) ? -1 : n;
}

int dom_cmd_is_hook(const char *path)
{
	char head[256];
	size_t n;
	FILE *f;

	if (access(path, X_OK))
		return 0;
	f = fopen(path, "re");
	if (!f)
		return 0;
	n = fread(head, 1, sizeof(head) - 1, f);
	fclose(f);
	head[n] = '\0';
	return strstr(head, DOM_HOOK_MARK) != NULL;
}

int dom_cmd_hook_installed(void)
{
	return dom_cmd_is_hook(DOM_HOOK_DIR "/" DOM_HOOK_SUB "/" DOM_HOOK_NAME) ||
	       dom_cmd_is_hook(DOM_HOOK_DIR "/qemu");
}
