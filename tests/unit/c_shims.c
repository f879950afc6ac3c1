// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "c_shims.h"
#include "wookie_link.h"

/*
 * In C an enum holds any value of its underlying type, so an invalid code
 * reaches wookie_mtu_to_bytes() exactly as a bad value from user space or
 * the network would.
 */
unsigned int wookie_test_mtu_to_bytes_raw(unsigned int code)
{
	return wookie_mtu_to_bytes((enum wookie_mtu)code);
}
