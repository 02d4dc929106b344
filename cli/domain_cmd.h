/* SPDX-License-Identifier: MIT */
/*
 * What `ringside enable`, `disable` and `hook` share: the <shmem> device
 * they write and where the hook lives.
 */
#ifndef RINGSIDE_CLI_DOMAIN_CMD_H
#define RINGSIDE_CLI_DOMAIN_CMD_H

#include <stddef.h>
#include <stdint.h>

#define DOM_HOOK_DIR   "/etc/libvirt/hooks"
#define DOM_HOOK_SUB   "qemu.d"
#define DOM_HOOK_NAME  "ringside"
#define DOM_HOOK_MARK  "# ringside libvirt hook"

/* <shmem name='@shm_name'> ivshmem-plain of @size bytes (a power of two
 * >= 1 MiB).  Returns the length, -1 when @len is too small. */
int dom_cmd_shmem_xml(const char *shm_name, uint64_t size, char *buf,
		      size_t len);

/* 1 if @path is an executable ringside hook (it carries DOM_HOOK_MARK). */
int dom_cmd_is_hook(const char *path);

/* 1 if ringside's hook is installed as DOM_HOOK_DIR/DOM_HOOK_SUB/ringside
 * or DOM_HOOK_DIR/qemu. */
int dom_cmd_hook_installed(void);

#endif /* RINGSIDE_CLI_DOMAIN_CMD_H */
