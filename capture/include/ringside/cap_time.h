/* SPDX-License-Identifier: MIT */
#ifndef RINGSIDE_CAP_TIME_H
#define RINGSIDE_CAP_TIME_H

#include <stdint.h>

/* The host's CLOCK_MONOTONIC, what every host fact is in: seconds, and
 * ns. */
double cap_time_now(void);
uint64_t cap_time_now_ns(void);

#endif /* RINGSIDE_CAP_TIME_H */
