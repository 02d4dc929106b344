/* SPDX-License-Identifier: MIT */
/*
 * A DOMAIN source's libvirt calls: its pause and resume, and the peek
 * sources introspect reads the guest through.  Reached only from a source
 * cap_source_open opened by a domain's name.
 */
#include <errno.h>
#include <stdint.h>

#include "ringside/domain_virt.h"

#include "cap_internal.h"

/* The domain's connection in *@conn, made if it is not yet.  0, or
 * libvirt's code; -EOPNOTSUPP: no domain. */
static int dom_connect(const struct cap_source *m, struct dom_virt **conn)
{
	if (!m->domain)
		return -EOPNOTSUPP;
	return *conn ? 0 : dom_virt_open(conn, NULL, m->domain, 0);
}

/* The domain's connection first, so that the pause covers only the
 * suspend request and what follows it. */
static int dom_pause(struct cap_source *m)
{
	int err = dom_connect(m, &m->dom_conn);

	if (err)
		return err;
	err = dom_virt_can_suspend(m->dom_conn);
	if (err <= 0)
		return err;     /* 0: stopped already, left so */
	m->pause.request_ns = cap_time_now_ns();
	err = dom_virt_suspend_now(m->dom_conn);
	m->pause.paused_ns = cap_time_now_ns();
	if (err < 0)
		return err;
	m->domain_paused = 1;
	return 0;
}

static int dom_resume(struct cap_source *m)
{
	return dom_virt_resume(m->dom_conn);
}

static void dom_close(struct cap_source *m)
{
	dom_virt_close(m->dom_conn);
	dom_virt_close(m->code_conn);
}

const struct cap_source_domain_ops cap_source_domain_ops = {
	.pause = dom_pause,
	.resume = dom_resume,
	.close = dom_close,
};

static int peek_virt(void *ctx, uint64_t gva, void *buf, size_t len)
{
	return dom_virt_peek_virt(ctx, gva, len, buf);
}

static int peek_phys(void *ctx, uint64_t gpa, void *buf, size_t len)
{
	return dom_virt_peek_phys(ctx, gpa, len, buf);
}

static int registers(void *ctx, char **text)
{
	return dom_virt_vcpu_registers(ctx, text);
}

int cap_source_domain_kcode_src(struct cap_source *m, struct gi_kcode_src *src)
{
	int err = dom_connect(m, &m->code_conn);

	if (err)
		return err;
	*src = (struct gi_kcode_src){ .peek = peek_virt, .ctx = m->code_conn,
				      .errstr = dom_error_str,
				      .chunk = DOM_PEEK_MAX };
	return 0;
}

int cap_source_domain_kbuf_src_of(struct dom_virt *d, struct gi_kbuf_src *src)
{
	unsigned long long ram;
	int err = dom_virt_ram_bytes(d, &ram);

	if (err)
		return err;
	*src = (struct gi_kbuf_src){ .peek = peek_phys, .ctx = d,
				     .errstr = dom_error_str };
	gi_kbuf_x86_ram(src->ram, ram);
	return 0;
}

int cap_source_domain_kbuf_src(struct cap_source *m, struct gi_kbuf_src *src)
{
	int err = dom_connect(m, &m->dom_conn);

	return err ? err : cap_source_domain_kbuf_src_of(m->dom_conn, src);
}

int cap_source_domain_vcpu_src(struct cap_source *m, struct gi_vcpu_src *src)
{
	int err = dom_connect(m, &m->dom_conn);

	if (err)
		return err;
	*src = (struct gi_vcpu_src){ .registers = registers, .peek = peek_virt,
				     .ctx = m->dom_conn, .errstr = dom_error_str };
	return 0;
}
