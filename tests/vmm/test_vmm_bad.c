// SPDX-License-Identifier: MIT
/* Bad input: every refusal is a clear negative errno and a log line. */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmm_fixture.h"

static struct vt t;

static void teardown(void)
{
	vt_fini(&t);
}

static void log_to(void *arg, int level, const char *fmt, va_list ap)
{
	ck_assert_int_eq(level, RS_LOG_ERR);   /* each says what failed */
	vsnprintf(arg, sizeof(t.log), fmt, ap);
}

static int try_create(void)
{
	t.p.log = log_to;
	t.p.log_arg = t.log;
	return vmm_create(&t.vm, &t.p);
}

START_TEST(bad_no_kvm)
{
	vt_params(&t.p);
	t.p.kvm_path = "/nonexistent/kvm";
	ck_assert_int_eq(try_create(), -ENOENT);
	ck_assert_ptr_null(t.vm);
	ck_assert_ptr_nonnull(strstr(t.log, "/nonexistent/kvm"));
}
END_TEST

START_TEST(bad_not_kvm)
{
	vt_params(&t.p);
	t.p.kvm_path = "/dev/null";
	ck_assert_int_eq(try_create(), -ENOSYS);
}
END_TEST

START_TEST(bad_not_pow2)
{
	vt_params(&t.p);
	t.p.data_pages = 3;
	ck_assert_int_eq(try_create(), -EINVAL);
	ck_assert_ptr_nonnull(strstr(t.log, "power of two"));
	vt_params(&t.p);
	t.p.aux_pages = 6;
	ck_assert_int_eq(try_create(), -EINVAL);
	vt_params(&t.p);
	t.p.data_pages = 0;
	ck_assert_int_eq(try_create(), -EINVAL);
}
END_TEST

START_TEST(bad_vcpus_rings)
{
	vt_params(&t.p);
	t.p.nr_vcpus = 4;
	t.p.nr_rings = 2;
	ck_assert_int_eq(try_create(), -ERANGE);
	ck_assert_ptr_nonnull(strstr(t.log, "rings"));
	vt_params(&t.p);
	t.p.nr_vcpus = RS_MAX_VCPUS + 1;
	ck_assert_int_eq(try_create(), -ERANGE);
	vt_params(&t.p);
	t.p.nr_vcpus = 0;
	ck_assert_int_eq(try_create(), -EINVAL);
	/* More rings than vCPUs is fine. */
	vt_params(&t.p);
	t.p.nr_vcpus = 1;
	t.p.nr_rings = 2;
	ck_assert_int_eq(try_create(), 0);
	ck_assert_uint_eq(vmm_nr_rings(t.vm), 2);
}
END_TEST

START_TEST(bad_region_too_big)
{
	vt_params(&t.p);
	t.p.nr_vcpus = 8;
	t.p.data_pages = 1u << 16;   /* 8 x 256 MiB > the 1 GiB window */
	ck_assert_int_eq(try_create(), -E2BIG);
}
END_TEST

static Elf64_Ehdr *elf_with_segment(uint64_t paddr, uint64_t memsz, size_t *len)
{
	uint8_t *img = calloc(1, 4096);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	Elf64_Phdr *ph = (Elf64_Phdr *)(img + sizeof(*eh));

	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_type = ET_EXEC;
	eh->e_machine = EM_X86_64;
	eh->e_entry = paddr;
	eh->e_phoff = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 1;
	ph->p_type = PT_LOAD;
	ph->p_flags = PF_R | PF_X;
	ph->p_offset = 0;
	ph->p_vaddr = ph->p_paddr = paddr;
	ph->p_filesz = 4096;
	ph->p_memsz = memsz;
	*len = 4096;
	return eh;
}

START_TEST(bad_images)
{
	static const char junk[] = "this is not an ELF image at all, sorry";
	Elf64_Ehdr *eh;
	size_t len;

	vt_params(&t.p);
	ck_assert_int_eq(try_create(), 0);
	ck_assert_int_eq(vmm_load_image(t.vm, junk, sizeof(junk)), -ENOEXEC);
	ck_assert_int_eq(vmm_load_image(t.vm, junk, 0), -ENOEXEC);
	ck_assert_int_eq(vmm_load_file(t.vm, "/nonexistent/payload"), -ENOENT);
	ck_assert_int_eq(vmm_load_file(t.vm, "/"), -ENOEXEC);
	/* Nothing loaded: nothing to start. */
	ck_assert_int_eq(vmm_start(t.vm), -ENOEXEC);

	eh = elf_with_segment(RS_BOOT_LOAD_GPA, 4096, &len);
	ck_assert_int_eq(vmm_load_image(t.vm, eh, 40), -ENOEXEC); /* truncated */
	eh->e_machine = EM_AARCH64;
	ck_assert_int_eq(vmm_load_image(t.vm, eh, len), -ENOEXEC);
	eh->e_machine = EM_X86_64;
	eh->e_phoff = 1u << 20;                         /* headers off the end */
	ck_assert_int_eq(vmm_load_image(t.vm, eh, len), -ENOEXEC);
	free(eh);

	eh = elf_with_segment(0x1000, 4096, &len);      /* over the page tables */
	ck_assert_int_eq(vmm_load_image(t.vm, eh, len), -E2BIG);
	free(eh);
	eh = elf_with_segment(RS_BOOT_LOAD_GPA, 1ull << 40, &len); /* too large */
	ck_assert_int_eq(vmm_load_image(t.vm, eh, len), -E2BIG);
	free(eh);
	eh = elf_with_segment(RS_BOOT_LOAD_GPA, 4096, &len);
	eh->e_entry = 0x400000;                         /* entry not loaded */
	ck_assert_int_eq(vmm_load_image(t.vm, eh, len), -ENOEXEC);
	free(eh);
	ck_assert_int_eq(vmm_start(t.vm), -ENOEXEC);
}
END_TEST

static void no_hook(struct vmm *vm, void *arg)
{
	(void)vm;
	(void)arg;
}

START_TEST(bad_null)
{
	struct rs_vmm_vcpu_info info;

	vmm_destroy(NULL);
	ck_assert_int_eq(vmm_create(NULL, &t.p), -EINVAL);
	ck_assert_int_eq(vmm_create(&t.vm, NULL), -EINVAL);
	t.p.size = 4;                                   /* no fields at all */
	ck_assert_int_eq(vmm_create(&t.vm, &t.p), -EINVAL);
	ck_assert_int_eq(vmm_load_file(NULL, "x"), -EINVAL);
	ck_assert_int_eq(vmm_load_image(NULL, "x", 1), -EINVAL);
	ck_assert_int_eq(vmm_load_flat(NULL, "x", 1), -EINVAL);
	ck_assert_int_eq(vmm_start(NULL), -EINVAL);
	ck_assert_int_eq(vmm_wait(NULL, 0), -EINVAL);
	ck_assert_int_eq(vmm_stop(NULL), -EINVAL);
	ck_assert_int_eq(vmm_pause(NULL), -EINVAL);
	ck_assert_int_eq(vmm_resume(NULL), -EINVAL);
	ck_assert_ptr_null(vmm_region(NULL));
	ck_assert_int_eq(vmm_region_fd(NULL), -EINVAL);
	ck_assert_uint_eq(vmm_region_size(NULL), 0);
	ck_assert_int_eq(vmm_doorbell_fd(NULL, 0), -EINVAL);
	ck_assert_int_eq(vmm_doorbell_collect(NULL, 0), -EINVAL);
	ck_assert_uint_eq(vmm_doorbell_count(NULL, 0), 0);
	ck_assert_int_eq(vmm_cpu_info(NULL, 0, &info), -EINVAL);
	ck_assert_uint_eq(vmm_tsc_to_ns(NULL, 1), 0);
	ck_assert_int_eq(vmm_control_listen(NULL, "x"), -EINVAL);
	ck_assert_int_eq(vmm_destroy_hook(NULL, no_hook, NULL), -EINVAL);
	ck_assert_int_eq(vmm_destroy_unhook(NULL, no_hook), -EINVAL);
	vmm_log(NULL, "nowhere");
	ck_assert_str_eq(vmm_cpu_state_name(999), "?");

	vt_params(&t.p);
	ck_assert_int_eq(try_create(), 0);
	ck_assert_int_eq(vmm_cpu_info(t.vm, 1, &info), -EINVAL);
	ck_assert_int_eq(vmm_doorbell_fd(t.vm, 1), -EINVAL);
	ck_assert_int_eq(vmm_resume(t.vm), -EALREADY);
	/* Pausing a VM that never started returns at once. */
	ck_assert_int_eq(vmm_pause(t.vm), 0);
	ck_assert_int_eq(vmm_resume(t.vm), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vmm_bad");
	TCase *tc = tcase_create("bad");
	SRunner *sr;
	int failed;

	vt_require_kvm();
	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, bad_no_kvm);
	tcase_add_test(tc, bad_not_kvm);
	tcase_add_test(tc, bad_not_pow2);
	tcase_add_test(tc, bad_vcpus_rings);
	tcase_add_test(tc, bad_region_too_big);
	tcase_add_test(tc, bad_images);
	tcase_add_test(tc, bad_null);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
