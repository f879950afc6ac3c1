/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * C helpers for the C++ tests: calls C++ cannot make without undefined
 * behaviour, such as passing an out-of-range value as an enum.
 */
#ifndef WOOKIE_C_SHIMS_H
#define WOOKIE_C_SHIMS_H

#ifdef __cplusplus
extern "C" {
#endif

/* wookie_mtu_to_bytes() on any 32-bit code, valid or not. */
unsigned int wookie_test_mtu_to_bytes_raw(unsigned int code);

#ifdef __cplusplus
}
#endif

#endif /* WOOKIE_C_SHIMS_H */
