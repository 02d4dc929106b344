/* SPDX-License-Identifier: MIT */
/*
 * The events of a ringside perf.data file and their attrs.
 *
 * All events are software events.  Records ringside carries whole travel as
 * PERF_COUNT_SW_BPF_OUTPUT samples: that is perf's event for raw data that
 * did not come from a PMU, and `perf script` prints its RAW payload.  The
 * guest's own samples become cpu-clock samples whose sample_type is the
 * guest's plus the shared sample-id fields (PDF_SAMPLE_BASE); config1 keeps
 * the guest's sample_type so that a reader can take the added fields out
 * again.  Their type, config, period or frequency and exclude_* bits are
 * the guest's event's as its agent claimed them; exclude_kernel is set on
 * the others: no record in the file comes from the host's kernel.
 */
#include <string.h>

#include "pdf_format.h"

static const char *const kind_names[PDF_KIND_MAX] = {
	[PDF_KIND_SAMPLE] = "ringside:sample",
	[PDF_KIND_SEQ]    = "ringside:seq",
	[PDF_KIND_MARKER] = "ringside:marker",
	[PDF_KIND_RING]   = "ringside:ring",
	[PDF_KIND_STATE]  = "ringside:state",
};

const char *pdf_layout_kind_name(enum pdf_kind kind)
{
	return (unsigned)kind < PDF_KIND_MAX ? kind_names[kind] : "ringside:?";
}

static void layout_fill(struct pdf_layout *lay, uint64_t guest_sample_type,
			uint64_t base)
{
	unsigned k;

	memset(lay, 0, sizeof(*lay));
	lay->guest_sample_type = guest_sample_type;
	lay->native_samples = !(guest_sample_type & ~(uint64_t)PDF_SAMPLE_KNOWN);
	if (lay->native_samples)
		base |= guest_sample_type &
			(PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID);
	lay->id_fields = base;
	for (k = 0; k < PDF_KIND_MAX; k++) {
		lay->sample_type[k] = base | PERF_SAMPLE_RAW;
		lay->id[k] = k + 1;
	}
	lay->sample_type[PDF_KIND_SAMPLE] = base;
	if (lay->native_samples)
		lay->sample_type[PDF_KIND_SAMPLE] |= guest_sample_type;
}

/* Every event has IP, as every event of a `perf record` does: perf script
 * checks its default fields (ip, sym) against the first event of each
 * type, and the carried events are software events like a guest's
 * cpu-clock (a guest's cycles event leaves ringside:seq the first one).
 * A carried record's IP is 0; a guest's sample keeps its own fields. */
void pdf_layout_init(struct pdf_layout *lay, uint64_t guest_sample_type)
{
	unsigned k;

	layout_fill(lay, guest_sample_type, PDF_SAMPLE_BASE);
	for (k = 0; k < PDF_KIND_MAX; k++)
		if (k != PDF_KIND_SAMPLE || !lay->native_samples)
			lay->sample_type[k] |= PERF_SAMPLE_IP;
	lay->marker_text = 1;
	lay->sample_type[PDF_KIND_MARKER] |= PERF_SAMPLE_ADDR | PERF_SAMPLE_PERIOD;
}

void pdf_layout_init_v1(struct pdf_layout *lay, uint64_t guest_sample_type)
{
	layout_fill(lay, guest_sample_type, PDF_SAMPLE_BASE_V1);
	/* then, a guest's ID or STREAM_ID was not shared */
	lay->id_fields = PDF_SAMPLE_BASE_V1;
}

void pdf_layout_set_guest(struct pdf_layout *lay,
			  const struct pdf_guest_facts *g)
{
	lay->guest_known = g && g->known;
	lay->guest_flags = lay->guest_known ? g->sample_flags : 0;
	lay->guest_type_id = lay->guest_known ? g->sample_type_id : 0;
	lay->guest_config = lay->guest_known ? g->sample_config : 0;
	lay->guest_period = lay->guest_known ? g->sample_period : 0;
}

size_t pdf_layout_trailer_size(const struct pdf_layout *lay)
{
	return 8u * (size_t)__builtin_popcountll(lay->id_fields &
						 PDF_SAMPLE_ID_ALL);
}

size_t pdf_layout_trailer_time(const struct pdf_layout *lay)
{
	return lay->id_fields & PERF_SAMPLE_TID ? 8u : 0u;
}

size_t pdf_layout_trailer(const struct pdf_layout *lay, uint32_t pid,
			  uint32_t tid, uint64_t time, uint32_t cpu,
			  uint64_t id, void *out)
{
	uint8_t *p = out;
	uint32_t pair[2];

	if (lay->id_fields & PERF_SAMPLE_TID) {
		pair[0] = pid;
		pair[1] = tid;
		memcpy(p, pair, 8);
		p += 8;
	}
	memcpy(p, &time, 8);
	p += 8;
	if (lay->id_fields & PERF_SAMPLE_ID) {
		memcpy(p, &id, 8);
		p += 8;
	}
	if (lay->id_fields & PERF_SAMPLE_STREAM_ID) {
		memcpy(p, &id, 8);
		p += 8;
	}
	pair[0] = cpu;
	pair[1] = 0;
	memcpy(p, pair, 8);
	p += 8;
	memcpy(p, &id, 8);
	p += 8;
	return (size_t)(p - (uint8_t *)out);
}

void pdf_layout_trailer_read(const struct pdf_layout *lay, const void *tr,
			     uint64_t *time, uint32_t *cpu, uint64_t *id)
{
	const uint8_t *p = tr;
	size_t size = pdf_layout_trailer_size(lay);

	memcpy(time, p + pdf_layout_trailer_time(lay), 8);
	memcpy(cpu, p + size - 16, 4);
	memcpy(id, p + size - 8, 8);
}

void pdf_layout_attr(const struct pdf_layout *lay, enum pdf_kind kind,
		     struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = PERF_TYPE_SOFTWARE;
	attr->size = PDF_ATTR_SIZE;
	attr->config = kind == PDF_KIND_SAMPLE ? PERF_COUNT_SW_CPU_CLOCK
					       : PERF_COUNT_SW_BPF_OUTPUT;
	attr->sample_period = 1;
	attr->sample_type = lay->sample_type[kind];
	attr->sample_id_all = 1;
	/* Nothing but the guest's samples can hold kernel addresses, and
	 * none of the host's; saying so of the others keeps `perf report`
	 * from looking for host kernel maps for them. */
	attr->exclude_kernel = 1;
	if (kind == PDF_KIND_SAMPLE) {
		attr->config1 = lay->guest_sample_type;
		/* what the guest's event was, as its agent claimed; not
		 * known: cpu-clock, excluding the kernel only while no
		 * sample of kernel mode was written */
		attr->exclude_kernel = !lay->kernel_seen;
		if (lay->guest_known) {
			attr->type = lay->guest_type_id;
			attr->config = lay->guest_config;
			attr->sample_period = lay->guest_period ?
					      lay->guest_period : 1;
			attr->freq = !!(lay->guest_flags & RS_SAMPLE_FREQ);
			attr->exclude_user =
				!!(lay->guest_flags & RS_SAMPLE_EXCLUDE_USER);
			attr->exclude_kernel =
				!!(lay->guest_flags & RS_SAMPLE_EXCLUDE_KERNEL);
		}
	}
	if (lay->use_clockid) {   /* as perf record -k CLOCK_MONOTONIC */
		attr->use_clockid = 1;
		attr->clockid = 1;
	}
}

void pdf_layout_pt_attr(const struct pdf_layout *lay,
			struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = PDF_PT_PMU_TYPE;
	attr->size = PDF_ATTR_SIZE;
	/* TSCEn (bit 10 of RTIT_CTL, as the AUXTRACE_INFO numbers it): the
	 * generator puts TSC packets in PSB+ */
	attr->config = 1ull << 10;
	attr->sample_period = 1;
	/* the fields every other event has, so that perf finds the id of
	 * any record at the same place; and IP, which perf's decoder gives
	 * its instruction samples (`perf script -F ip` checks it here) */
	attr->sample_type = lay->id_fields | PERF_SAMPLE_IP;
	attr->sample_id_all = 1;
	attr->exclude_user = 0;
	if (lay->use_clockid) {
		attr->use_clockid = 1;
		attr->clockid = 1;
	}
}

/* The host's records of the vCPU threads, filed on the vCPU's lane
 * (docs/hostview.md, "In perf.data"): context switches, as perf record
 * --switch-events has them, and exits as samples with RAW. */
void pdf_layout_host_attr(const struct pdf_layout *lay,
			  struct perf_event_attr *attr)
{
	pdf_layout_pt_attr(lay, attr);
	attr->type = PERF_TYPE_SOFTWARE;
	/* its samples (exits) carry RAW bytes, which perf script dumps for
	 * this event as for the other carried ones */
	attr->config = PERF_COUNT_SW_BPF_OUTPUT;
	attr->sample_type |= PERF_SAMPLE_RAW;
	attr->exclude_user = 0;
	attr->exclude_kernel = 1;
	attr->context_switch = 1;
}

/* The attr and id of the @k-th event of @lay's file. */
static uint64_t layout_attr_at(const struct pdf_layout *lay, unsigned k,
			       struct perf_event_attr *attr)
{
	if (k < PDF_KIND_MAX) {
		pdf_layout_attr(lay, (enum pdf_kind)k, attr);
		return lay->id[k];
	}
	if (k == PDF_KIND_MAX && lay->pt) {
		pdf_layout_pt_attr(lay, attr);
		return PDF_PT_ID;
	}
	pdf_layout_host_attr(lay, attr);
	return lay->host_id;
}

size_t pdf_layout_attrs(const struct pdf_layout *lay, uint8_t *buf)
{
	unsigned nr = pdf_layout_nr_attrs(lay), k;
	size_t len = sizeof(struct pdf_file_header) +
		     nr * (PDF_ATTR_SIZE + sizeof(struct pdf_section) +
			   sizeof(uint64_t));
	uint64_t ids_at = sizeof(struct pdf_file_header) +
			  nr * (PDF_ATTR_SIZE + sizeof(struct pdf_section));
	uint8_t *p = buf + sizeof(struct pdf_file_header);
	struct perf_event_attr attr;
	struct pdf_section ids;
	uint64_t id;

	memset(buf, 0, sizeof(struct pdf_file_header)); /* filled in last */
	for (k = 0; k < nr; k++) {
		layout_attr_at(lay, k, &attr);
		memcpy(p, &attr, PDF_ATTR_SIZE);
		p += PDF_ATTR_SIZE;
		ids.offset = ids_at + k * sizeof(uint64_t);
		ids.size = sizeof(uint64_t);
		memcpy(p, &ids, sizeof(ids));
		p += sizeof(ids);
	}
	for (k = 0; k < nr; k++) {
		id = layout_attr_at(lay, k, &attr);
		memcpy(p, &id, sizeof(uint64_t));
		p += sizeof(uint64_t);
	}
	return len;
}
