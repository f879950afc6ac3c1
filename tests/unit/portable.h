/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The portable code's headers for C++: C linkage, then the vectors shared
 * with the KUnit suites.
 */
#ifndef WOOKIE_UNIT_PORTABLE_H
#define WOOKIE_UNIT_PORTABLE_H

extern "C" {
#include "wookie_icrc.h"
#include "wookie_link.h"
#include "wookie_queue.h"
#include "wookie_wire.h"
}

#include "c_shims.h"
#include "wookie_icrc_vectors.h"
#include "wookie_link_vectors.h"
#include "wookie_wire_vectors.h"

#endif /* WOOKIE_UNIT_PORTABLE_H */
