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

/* The continuous recordings, all domains together: every count but the
 * gauge of those being recorded now. */
static const struct svc_expo_def totals[] = {
#define T(name, member, help) \
	{ name, "counter", help, SVC_EXPO_AT(struct svc_rec_stats, member) }
	T("ringside_recordings_started_total", started,
	  "Recordings started."),
	T("ringside_recordings_failed_total", failed,
	  "Recordings that failed to start or ended in an error."),
	T("ringside_recording_files_total", files,
	  "Recording files completed."),
	T("ringside_recording_rotations_total", rotations,
	  "Of them, completed by rotation."),
	T("ringside_recording_records_total", records,
	  "Records in the completed files."),
	T("ringside_recording_bytes_total", bytes,
	  "Bytes of the completed files."),
	T("ringside_recording_guest_claimed_lost_records_total", lost,
	  "Records the guest says its producer lost, in the "
	  "completed files' LOST records (guest claims)."),
	T("ringside_recording_corrupt_total", corrupt,
	  "Corruption events the host met draining the rings."),
	T("ringside_recording_discarded_records_total", discarded,
	  "Records drained into a file that could not be completed "
	  "(a full disk): lost."),
	T("ringside_recording_disk_full_total", disk_full,
	  "Writes of a recording that found the disk full (the "
	  "recording paused until there was room)."),
	T("ringside_recording_disk_full_truncated_files_total", disk_salvaged,
	  "Files cut back to what was on disk when it filled."),
	T("ringside_recording_disk_full_lost_files_total", disk_files_lost,
	  "Files a full disk lost whole."),
	T("ringside_recording_disk_full_lost_records_total", disk_lost,
	  "Records drained that no file holds: lost to a full disk "
	  "(LOST records aside)."),
	T("ringside_recording_disk_full_guest_claimed_lost_records_total",
	  disk_lost_lost,
	  "The counts of the LOST records lost to a full disk (guest "
	  "claims)."),
	T("ringside_recording_disk_full_pruned_files_total", disk_pruned,
	  "Recordings removed to make room on a full disk."),
	T("ringside_recording_pruned_files_total", pruned,
	  "Recording files removed by the retention bounds."),
	T("ringside_recording_pruned_bytes_total", pruned_bytes,
	  "Bytes of them."),
	T("ringside_recording_sidecars_failed_total", sidecar_failed,
	  "Sidecars that could not be written."),
	T("ringside_recording_profiles_total", pprof_ok,
	  "pprof profiles written beside completed files."),
	T("ringside_recording_profiles_failed_total", pprof_failed,
	  "Profiles that could not be written."),
	T("ringside_recording_profiles_skipped_total", pprof_skipped,
	  "Completed files left without a profile: too many being "
	  "made."),
	T("ringside_post_command_runs_total", post_run,
	  "Post-command runs."),
	T("ringside_post_command_files_total", post_ok,
	  "Files the post-command succeeded on."),
	T("ringside_post_command_failures_total", post_failed,
	  "Files it failed on at every try."),
	T("ringside_post_command_dropped_total", post_dropped,
	  "Files not given to it: its queue was full."),
#undef T
};

void svc_metrics_rec_totals(FILE *f, const struct svc_rec_stats *r)
{
	svc_expo_gauge(f, "ringside_recordings", "Domains being recorded now.",
		       r->recording);
	svc_expo_defs(f, totals, sizeof(totals) / sizeof(totals[0]), r);
}

/* Each recorded domain's recorder: per ring, ... */
static const struct svc_expo_def rec_ring[] = {
#define R(name, member, help) \
	{ name, "counter", help, SVC_EXPO_AT(struct svc_rec_ring_stats, member) }
	R("ringside_recorder_records_total", records,
	  "Records the service's recorder took from the ring into its "
	  "files, LOST records aside (delivered)."),
	R("ringside_recorder_bytes_total", bytes,
	  "Bytes of the records it took from the ring, all kinds."),
	R("ringside_recorder_aux_bytes_total", aux_bytes,
	  "AUX bytes it took from the ring into its files."),
	R("ringside_recorder_guest_claimed_lost_records_total", lost,
	  "Records the guest says its producer lost, in the LOST records "
	  "taken: the guest's claim, never summed with the host's."),
	R("ringside_recorder_corrupt_total", corrupt,
	  "Corruption events the host met draining the ring (malformed "
	  "records, impossible heads or tails)."),
	R("ringside_recorder_corrupt_bytes_total", corrupt_bytes,
	  "Ring bytes the host discarded for them: lost."),
	R("ringside_recorder_unwritable_records_total", not_written,
	  "Records the host skipped: perf.data cannot carry them."),
#undef R
};

/* ... and per domain, after the gauge ringside_recorder_recording. */
static const struct svc_expo_def rec_dom[] = {
#define D(name, member, help) \
	{ name, "counter", help, SVC_EXPO_AT(struct svc_rec_domain, member) }
	D("ringside_recorder_started_total", started,
	  "Recordings of the domain started."),
	D("ringside_recorder_failed_total", failed,
	  "Of them, failed to start or ended in an error."),
	D("ringside_recorder_files_total", files,
	  "Recording files of the domain completed."),
	D("ringside_recorder_rotations_total", rotations,
	  "Of them, completed by rotation (size or age)."),
	D("ringside_recorder_discarded_records_total", discarded,
	  "Records taken into a file that could not be completed (a full "
	  "disk): lost."),
	D("ringside_recorder_pruned_files_total", pruned,
	  "The domain's recording files removed by the retention bounds."),
	D("ringside_recorder_pruned_bytes_total", pruned_bytes,
	  "Bytes of them (with their sidecars and profiles)."),
#undef D
};

void svc_metrics_rec_domains(FILE *f, const struct svc_stats *st)
{
	const struct svc_rec_domain *d = st->rec_domains;
	size_t nr = d ? st->nr_rec_domains : 0;

	for (size_t k = 0; k < sizeof(rec_ring) / sizeof(rec_ring[0]); k++) {
		svc_expo_def_family(f, &rec_ring[k]);
		for (size_t i = 0; i < nr; i++)
			for (uint32_t j = 0; j < d[i].nr_rings; j++)
				svc_expo_u(f, rec_ring[k].name, d[i].domain,
					   (long)j, NULL,
					   svc_expo_value(&rec_ring[k],
							  &d[i].ring[j]));
	}
	svc_expo_family(f, "ringside_recorder_recording", "gauge",
			"1 while the service records the domain.");
	for (size_t i = 0; i < nr; i++)
		svc_expo_u(f, "ringside_recorder_recording", d[i].domain, -1,
			   NULL, d[i].recording ? 1 : 0);
	for (size_t k = 0; k < sizeof(rec_dom) / sizeof(rec_dom[0]); k++) {
		svc_expo_def_family(f, &rec_dom[k]);
		for (size_t i = 0; i < nr; i++)
			svc_expo_u(f, rec_dom[k].name, d[i].domain, -1, NULL,
				   svc_expo_value(&rec_dom[k], &d[i]));
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
