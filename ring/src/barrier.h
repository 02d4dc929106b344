/* SPDX-License-Identifier: MIT */
/* The ring's barriers live with the producer's inline path, which callers
 * outside the library compile (ringside/producer_inline.h). */
#include "ringside/barrier.h"
