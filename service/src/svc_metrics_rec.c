/* SPDX-License-Identifier: MIT */
/*
 * The continuous recordings' metrics: the service's totals, and each
 * recorded domain's recorder: per ring what it took and met, per domain
 * its files, retention and time sync.  Counters named *_total; what the
 * guest claims (LOST counts) under *guest_claimed*, never summed with
 * what the host observed.
 */
#include "svc_expo.h"
#include "svc_metrics_rec.h"

/* The continuous recordings, all domains together. */
void svc_metrics_rec_totals(FILE *f, const struct svc_rec_stats *r)
{
	svc_expo_gauge(f, "ringside_recordings", "Domains being recorded now.",
		       r->recording);
	svc_expo_counter(f, "ringside_recordings_started_total",
			 "Recordings started.", r->started);
	svc_expo_counter(f, "ringside_recordings_failed_total", "Recordings "
			 "that failed to start or ended in an error.",
			 r->failed);
	svc_expo_counter(f, "ringside_recording_files_total",
			 "Recording files completed.", r->files);
	svc_expo_counter(f, "ringside_recording_rotations_total",
			 "Of them, completed by rotation.", r->rotations);
	svc_expo_counter(f, "ringside_recording_records_total",
			 "Records in the completed files.", r->records);
	svc_expo_counter(f, "ringside_recording_bytes_total",
			 "Bytes of the completed files.", r->bytes);
	svc_expo_counter(f, "ringside_recording_guest_claimed_lost_records_total",
			 "Records the guest says its producer lost, in the "
			 "completed files' LOST records (guest claims).",
			 r->lost);
	svc_expo_counter(f, "ringside_recording_corrupt_total",
			 "Corruption events the host met draining the rings.",
			 r->corrupt);
	svc_expo_counter(f, "ringside_recording_discarded_records_total",
			 "Records drained into a file that could not be "
			 "completed (a full disk): lost.", r->discarded);
	svc_expo_counter(f, "ringside_recording_disk_full_total", "Writes of a "
			 "recording that found the disk full (the recording "
			 "paused until there was room).", r->disk_full);
	svc_expo_counter(f, "ringside_recording_disk_full_truncated_files_total",
			 "Files cut back to what was on disk when it filled.",
			 r->disk_salvaged);
	svc_expo_counter(f, "ringside_recording_disk_full_lost_files_total",
			 "Files a full disk lost whole.", r->disk_files_lost);
	svc_expo_counter(f, "ringside_recording_disk_full_lost_records_total",
			 "Records drained that no file holds: lost to a full "
			 "disk (LOST records aside).", r->disk_lost);
	svc_expo_counter(f, "ringside_recording_disk_full_guest_claimed_lost_records_total",
			 "The counts of the LOST records lost to a full disk "
			 "(guest claims).", r->disk_lost_lost);
	svc_expo_counter(f, "ringside_recording_disk_full_pruned_files_total",
			 "Recordings removed to make room on a full disk.",
			 r->disk_pruned);
	svc_expo_counter(f, "ringside_recording_pruned_files_total",
			 "Recording files removed by the retention bounds.",
			 r->pruned);
	svc_expo_counter(f, "ringside_recording_pruned_bytes_total",
			 "Bytes of them.", r->pruned_bytes);
	svc_expo_counter(f, "ringside_recording_sidecars_failed_total",
			 "Sidecars that could not be written.",
			 r->sidecar_failed);
	svc_expo_counter(f, "ringside_recording_profiles_total", "pprof "
			 "profiles written beside completed files.",
			 r->pprof_ok);
	svc_expo_counter(f, "ringside_recording_profiles_failed_total",
			 "Profiles that could not be written.",
			 r->pprof_failed);
	svc_expo_counter(f, "ringside_recording_profiles_skipped_total",
			 "Completed files left without a profile: too many "
			 "being made.", r->pprof_skipped);
	svc_expo_counter(f, "ringside_post_command_runs_total",
			 "Post-command runs.", r->post_run);
	svc_expo_counter(f, "ringside_post_command_files_total",
			 "Files the post-command succeeded on.", r->post_ok);
	svc_expo_counter(f, "ringside_post_command_failures_total",
			 "Files it failed on at every try.", r->post_failed);
	svc_expo_counter(f, "ringside_post_command_dropped_total", "Files not "
			 "given to it: its queue was full.", r->post_dropped);
}

/* Each recorded domain's recorder: per ring, per domain. */
enum rec_ring_field { RR_RECORDS, RR_BYTES, RR_AUX, RR_LOST, RR_CORRUPT,
		      RR_CORRUPT_BYTES, RR_UNWRITABLE, RR_FIELDS };

static const struct {
	const char *name, *help;
} rec_ring_fields[RR_FIELDS] = {
	[RR_RECORDS] = { "ringside_recorder_records_total",
		"Records the service's recorder took from the ring into its "
		"files, LOST records aside (delivered)." },
	[RR_BYTES] = { "ringside_recorder_bytes_total",
		"Bytes of the records it took from the ring, all kinds." },
	[RR_AUX] = { "ringside_recorder_aux_bytes_total",
		"AUX bytes it took from the ring into its files." },
	[RR_LOST] = { "ringside_recorder_guest_claimed_lost_records_total",
		"Records the guest says its producer lost, in the LOST records "
		"taken: the guest's claim, never summed with the host's." },
	[RR_CORRUPT] = { "ringside_recorder_corrupt_total",
		"Corruption events the host met draining the ring (malformed "
		"records, impossible heads or tails)." },
	[RR_CORRUPT_BYTES] = { "ringside_recorder_corrupt_bytes_total",
		"Ring bytes the host discarded for them: lost." },
	[RR_UNWRITABLE] = { "ringside_recorder_unwritable_records_total",
		"Records the host skipped: perf.data cannot carry them." },
};

static uint64_t rec_ring_value(enum rec_ring_field k,
			       const struct svc_rec_ring_stats *r)
{
	switch (k) {
	case RR_RECORDS: return r->records;
	case RR_BYTES: return r->bytes;
	case RR_AUX: return r->aux_bytes;
	case RR_LOST: return r->lost;
	case RR_CORRUPT: return r->corrupt;
	case RR_CORRUPT_BYTES: return r->corrupt_bytes;
	case RR_UNWRITABLE: return r->not_written;
	default: return 0;
	}
}

enum rec_dom_field { RD_RECORDING, RD_STARTED, RD_FAILED, RD_FILES,
		     RD_ROTATIONS, RD_DISCARDED, RD_PRUNED, RD_PRUNED_BYTES,
		     RD_FIELDS };

static const struct {
	const char *name, *type, *help;
} rec_dom_fields[RD_FIELDS] = {
	[RD_RECORDING] = { "ringside_recorder_recording", "gauge",
		"1 while the service records the domain." },
	[RD_STARTED] = { "ringside_recorder_started_total", "counter",
		"Recordings of the domain started." },
	[RD_FAILED] = { "ringside_recorder_failed_total", "counter",
		"Of them, failed to start or ended in an error." },
	[RD_FILES] = { "ringside_recorder_files_total", "counter",
		"Recording files of the domain completed." },
	[RD_ROTATIONS] = { "ringside_recorder_rotations_total", "counter",
		"Of them, completed by rotation (size or age)." },
	[RD_DISCARDED] = { "ringside_recorder_discarded_records_total",
		"counter", "Records taken into a file that could not be "
		"completed (a full disk): lost." },
	[RD_PRUNED] = { "ringside_recorder_pruned_files_total", "counter",
		"The domain's recording files removed by the retention "
		"bounds." },
	[RD_PRUNED_BYTES] = { "ringside_recorder_pruned_bytes_total",
		"counter", "Bytes of them (with their sidecars and profiles)." },
};

static uint64_t rec_dom_value(enum rec_dom_field k,
			      const struct svc_rec_domain *d)
{
	switch (k) {
	case RD_RECORDING: return d->recording ? 1 : 0;
	case RD_STARTED: return d->started;
	case RD_FAILED: return d->failed;
	case RD_FILES: return d->files;
	case RD_ROTATIONS: return d->rotations;
	case RD_DISCARDED: return d->discarded;
	case RD_PRUNED: return d->pruned;
	case RD_PRUNED_BYTES: return d->pruned_bytes;
	default: return 0;
	}
}

void svc_metrics_rec_domains(FILE *f, const struct svc_stats *st)
{
	const struct svc_rec_domain *d = st->rec_domains;
	size_t nr = d ? st->nr_rec_domains : 0;

	for (int k = 0; k < RR_FIELDS; k++) {
		svc_expo_family(f, rec_ring_fields[k].name, "counter",
				rec_ring_fields[k].help);
		for (size_t i = 0; i < nr; i++)
			for (uint32_t j = 0; j < d[i].nr_rings; j++)
				svc_expo_u(f, rec_ring_fields[k].name,
					   d[i].domain, (long)j, NULL,
					   rec_ring_value((enum rec_ring_field)k,
							  &d[i].ring[j]));
	}
	for (int k = 0; k < RD_FIELDS; k++) {
		svc_expo_family(f, rec_dom_fields[k].name,
				rec_dom_fields[k].type, rec_dom_fields[k].help);
		for (size_t i = 0; i < nr; i++)
			svc_expo_u(f, rec_dom_fields[k].name, d[i].domain, -1,
				   NULL, rec_dom_value((enum rec_dom_field)k,
				   &d[i]));
	}
	svc_expo_counter(f, "ringside_recorder_domains_dropped_total",
			 "Recorded domains past the service's bound: not "
			 "counted per domain.", st->rec.domains_dropped);
	svc_expo_family(f, "ringside_time_sync_error_bound_seconds", "gauge",
			"The host's bound on its estimate of the guest clock "
			"(+- seconds), from the latest time sync of the "
			"domain's recording; no sample while none holds.");
	for (size_t i = 0; i < nr; i++) {
		if (!d[i].recording || !d[i].synced)
			continue;
		svc_expo_labels(f, "ringside_time_sync_error_bound_seconds",
				d[i].domain, -1, NULL);
		fprintf(f, " %.9f\n", (double)d[i].sync_bound_ns / 1e9);
	}
}
