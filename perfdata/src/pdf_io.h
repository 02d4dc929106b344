/* SPDX-License-Identifier: MIT */
/* Private to perfdata/: files written whole and aside.  Whole writes and
 * reads are base/'s (ringside/io.h: rs_io_write_all, rs_io_pwrite_all,
 * rs_io_pread_all), 0 or -errno. */
#ifndef RINGSIDE_PDF_IO_H
#define RINGSIDE_PDF_IO_H

#include <stddef.h>
#include <stdint.h>

#include "ringside/io.h"

#endif /* RINGSIDE_PDF_IO_H */
