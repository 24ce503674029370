/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _HFI1_LOG_H_
#define _HFI1_LOG_H_

/**
 * @file
 * The one log type of net_hfi1 (PMD, base layer and model): pmd.net.hfi1.
 */

#include <rte_log.h>

extern int hfi1_logtype;

#define HFI1_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, hfi1_logtype, "%s(): " fmt "\n", \
		__func__, ## __VA_ARGS__)

#endif /* _HFI1_LOG_H_ */
