/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _HFI1_LOG_H_
#define _HFI1_LOG_H_

/**
 * @file
 * The one log type of net_hfi1 (PMD, base layer and model): pmd.net.hfi1.
 * The PMD glue logs with HFI1_LOG, the base layer and the model with
 * HFI1_OSAL_LOG (base/hfi1_osal.h): the same log type and format.
 */

#include "base/hfi1_osal.h"

#define HFI1_LOG(level, fmt, ...) HFI1_OSAL_LOG(level, fmt, ## __VA_ARGS__)

#endif /* _HFI1_LOG_H_ */
