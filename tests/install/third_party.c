/* SPDX-License-Identifier: MIT */
/*
 * A guest agent written outside ringside's tree, built by install.sh
 * against the installed headers and libraries only (pkg-config
 * ringside-ring ringside-mark).  It plays both ends on one host:
 *
 *   - a program sends a marker with the marker library (rs_mark_open,
 *     rs_mark_send) to a socket this agent bound, and the agent receives
 *     the datagram the wire format (ringside/mark_wire.h) describes;
 *   - the agent writes the marker and SEQ records into a ring with the
 *     producer API; the host side (consumer API) drains the ring and
 *     checks every record, in order, with nothing lost.
 *
 * Usage: third-party DIR (a writable directory for the socket).  Exit 0
 * when every check passed; each failure is printed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <ringside/mark.h>
/* The modules it uses, each header on its own (ringside/ring.h would
 * bring all of them). */
#include <ringside/ring_consumer.h>
#include <ringside/ring_producer.h>
#include <ringside/ring_seq.h>

#define NR_SEQ      50u
#define SEQ_FILL    24u
#define MARK_ID     7u
#define MARK_TEXT   "from a third party"

static int failures;

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "third-party:%d: check failed: %s\n", \
			__LINE__, #cond); \
		failures++; \
	} \
} while (0)

struct seen {
	uint32_t records;
	uint32_t seq_ok;        /* intact SEQ records in order */
	uint64_t next_seq;
	uint32_t markers;
	uint32_t marker_ok;     /* id, pid and text as sent */
	uint32_t other;
};

static int on_record(const struct rs_perf_header *rec, void *arg)
{
	struct seen *s = arg;

	s->records++;
	if (rec->type == RS_RECORD_SEQ) {
		const struct rs_rec_seq *q = (const void *)rec;

		if (rs_seq_check(rec) && q->seq == s->next_seq)
			s->seq_ok++;
		s->next_seq = q->seq + 1;
	} else if (rec->type == RS_RECORD_MARKER) {
		const struct rs_rec_marker *m = (const void *)rec;
		const char *text = (const char *)(m + 1);

		s->markers++;
		if (m->id == MARK_ID && m->pid == (uint32_t)getpid() &&
		    m->len == strlen(MARK_TEXT) &&
		    sizeof(*m) + m->len <= rec->size &&
		    !memcmp(text, MARK_TEXT, m->len))
			s->marker_ok++;
	} else {
		s->other++;
	}
	return 0;
}

/* Receive one marker on @fd as the wire format says; its text into @text
 * (NUL-terminated).  0 or -1. */
static int receive_marker(int fd, struct rs_mark_msg *msg, char *text,
			  size_t text_size)
{
	char buf[sizeof(*msg) + RS_MARK_TEXT_MAX];
	ssize_t n = recv(fd, buf, sizeof(buf), 0);

	if (n < (ssize_t)sizeof(*msg))
		return -1;
	memcpy(msg, buf, sizeof(*msg));
	if (msg->magic != RS_MARK_MAGIC || msg->len != (size_t)n - sizeof(*msg) ||
	    msg->len >= text_size)
		return -1;
	memcpy(text, buf + sizeof(*msg), msg->len);
	text[msg->len] = '\0';
	return 0;
}

/* The marker as an agent writes it: RS_RECORD_MARKER into @p. */
static int put_marker(struct rs_producer *p, const struct rs_mark_msg *msg,
		      const char *text)
{
	struct {
		struct rs_rec_marker m;
		char text[64];
	} rec;
	uint32_t body = (uint32_t)(sizeof(rec.m) - sizeof(rec.m.header) +
				   msg->len);

	if (msg->len > sizeof(rec.text))
		return -1;
	memset(&rec, 0, sizeof(rec));
	rec.m.time = msg->time;
	rec.m.pid = (uint32_t)getpid();
	rec.m.tid = msg->tid;
	rec.m.id = msg->id;
	rec.m.len = msg->len;
	memcpy(rec.text, text, msg->len);
	return rs_producer_output(p, RS_RECORD_MARKER, 0, &rec.m.header + 1,
				  body);
}

int main(int argc, char **argv)
{
	struct rs_region_params params = {
		.size = sizeof(params),
		.nr_rings = 1,
		.data_pages = 4,
		.data_mode = RS_MODE_NORMAL,
		.aux_mode = RS_MODE_NORMAL,
		.trace_mask = RS_TRACE_TEST | RS_TRACE_MARKERS,
	};
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	uint8_t seq_buf[64] __attribute__((aligned(8)));
	struct rs_mark_msg msg;
	struct rs_consumer *cons;
	struct rs_region region;
	struct rs_marker marker;
	struct rs_producer prod;
	struct seen seen = { 0 };
	char text[RS_MARK_TEXT_MAX + 1];
	uint64_t size = 0;
	void *mem;
	int fd, err, n;
	uint32_t i;

	if (argc != 2) {
		fprintf(stderr, "usage: third-party DIR\n");
		return 2;
	}

	/* The marker library, against a socket this "agent" listens on. */
	n = snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/mark.sock", argv[1]);
	if (n < 0 || (size_t)n >= sizeof(sa.sun_path)) {
		fprintf(stderr, "third-party: %s: path too long\n", argv[1]);
		return 2;
	}
	unlink(sa.sun_path);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (const struct sockaddr *)&sa, sizeof(sa))) {
		perror("third-party: marker socket");
		return 2;
	}
	err = rs_mark_open(&marker, sa.sun_path);
	CHECK(err == 0);
	if (!err) {
		CHECK(rs_mark_send(&marker, MARK_ID, MARK_TEXT,
				   (uint32_t)strlen(MARK_TEXT), 0) == 0);
		/* the agent's ids are refused by the library itself */
		CHECK(rs_mark_send(&marker, RS_MARK_AGENT_ATTACH, "x", 1, 0) ==
		      -EINVAL);
		rs_mark_close(&marker);
	}
	CHECK(receive_marker(fd, &msg, text, sizeof(text)) == 0);
	CHECK(msg.id == MARK_ID && !strcmp(text, MARK_TEXT));
	close(fd);
	unlink(sa.sun_path);

	/* A region, one ring: the producer API. */
	CHECK(rs_region_size(&params, &size) == 0);
	if (!size)
		return 1;
	mem = aligned_alloc(RS_PAGE_SIZE, size);
	if (!mem)
		return 2;
	CHECK(rs_region_layout(mem, size, &params) == 0);
	CHECK(rs_region_open(&region, mem, size) == 0);
	CHECK(rs_region_nr_rings(&region) == 1);
	CHECK(rs_producer_init(&prod, &region, 0) == 0);

	CHECK(put_marker(&prod, &msg, text) >= 0);
	for (i = 0; i < NR_SEQ; i++) {
		int len = rs_seq_build(seq_buf, i, 1000 + i, 0, SEQ_FILL);

		CHECK(len > 0 && (size_t)len <= sizeof(seq_buf));
		CHECK(rs_producer_output(&prod, RS_RECORD_SEQ, 0,
					 seq_buf + sizeof(struct rs_perf_header),
					 (uint32_t)len -
					 (uint32_t)sizeof(struct rs_perf_header))
		      >= 0);
	}
	CHECK(rs_producer_lost(&prod) == 0);

	/* The host's side: the consumer API. */
	cons = rs_consumer_alloc(&region, 0);
	CHECK(cons != NULL);
	if (cons) {
		n = rs_consumer_drain(cons, on_record, &seen);
		CHECK(n == (int)(NR_SEQ + 1));
		CHECK(rs_consumer_pending(cons) == 0);
		rs_consumer_free(cons);
	}
	CHECK(seen.records == NR_SEQ + 1);
	CHECK(seen.seq_ok == NR_SEQ);
	CHECK(seen.markers == 1 && seen.marker_ok == 1);
	CHECK(seen.other == 0);
	free(mem);

	if (failures)
		return 1;
	printf("third-party: marker sent and received, %u SEQ records and 1 "
	       "marker produced and consumed\n", NR_SEQ);
	return 0;
}
