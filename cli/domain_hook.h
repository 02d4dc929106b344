/* SPDX-License-Identifier: MIT */
/*
 * What `ringside hook run` does for libvirt: the region file of an opted-in
 * domain at "prepare begin" and "release end".  Both print their failures
 * ("ringside CMD: ...", which libvirt shows to whoever started the domain)
 * and return an enum cli_exit value.
 */
#ifndef RINGSIDE_CLI_DOMAIN_HOOK_H
#define RINGSIDE_CLI_DOMAIN_HOOK_H

/* Read the domain XML from stdin; for a domain with ringside metadata,
 * check it against its <shmem> device and create the region file, group
 * @group.  Any other domain: nothing, status 0. */
int dom_hook_prepare(const char *cmd, const char *domain, const char *group);

/* Remove the domain's region file, if there is one. */
int dom_hook_release(const char *cmd, const char *domain);

#endif /* RINGSIDE_CLI_DOMAIN_HOOK_H */
