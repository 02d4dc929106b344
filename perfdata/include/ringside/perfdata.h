/* SPDX-License-Identifier: MIT */
/*
 * ringside-perfdata: perf.data files as ringside writes and reads them.
 * docs/perfdata.md describes the library, docs/cli.md ("The perf.data
 * mapping") what a ring record becomes in the file.  One header per
 * module, each named after its file (perfdata/src/pdf_MODULE.c) and its
 * functions (pdf_MODULE_*); this one includes them all.
 *
 *   perfdata/error.h     the library's error codes, pdf_error_str()
 *   perfdata/aside.h     files written aside and renamed into place
 *   perfdata/buf.h       a growable byte buffer
 *   perfdata/rrec.h      ring records as the host sees them: class, perf
 *                        body, the time a record is filed under
 *   perfdata/sample.h    PERF_RECORD_SAMPLE bodies
 *   perfdata/clock.h     the clock of a file's times
 *   perfdata/host.h      what the host observed reading the rings
 *   perfdata/cache.h     ringside's build-id caches (and perf's)
 *   perfdata/ksyms.h     a guest kernel's symbols, for perf to name its
 *                        samples
 *   perfdata/kernel.h    the guest kernel's maps: where its code lies
 *   perfdata/kcore.h     the guest kernel's code, for perf's PT decoder
 *   perfdata/uelf.h      a guest user binary's symbols
 *   perfdata/umaps.h     a guest's processes' user-space mappings, from
 *                        MMAP2 records
 *   perfdata/writer.h    a file of ring records (record, snapshot, run)
 *   perfdata/reader.h    such a file read back into ring records
 *   perfdata/archive.h   a file's build-id cache entries in one tar
 *   perfdata/intel_pt.h  an Intel PT trace for perf's own decoder
 *
 * Nothing here prints or exits.
 */
#ifndef RINGSIDE_PERFDATA_H
#define RINGSIDE_PERFDATA_H

#include "ringside/perfdata/error.h"
#include "ringside/perfdata/aside.h"
#include "ringside/perfdata/buf.h"
#include "ringside/perfdata/rrec.h"
#include "ringside/perfdata/sample.h"
#include "ringside/perfdata/clock.h"
#include "ringside/perfdata/host.h"
#include "ringside/perfdata/cache.h"
#include "ringside/perfdata/ksyms.h"
#include "ringside/perfdata/kernel.h"
#include "ringside/perfdata/kcore.h"
#include "ringside/perfdata/uelf.h"
#include "ringside/perfdata/umaps.h"
#include "ringside/perfdata/writer.h"
#include "ringside/perfdata/reader.h"
#include "ringside/perfdata/archive.h"
#include "ringside/perfdata/intel_pt.h"

#endif /* RINGSIDE_PERFDATA_H */
