/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* PLACEHOLDER, to be replaced by the model part's implementation. */

#include "e4m_priv.h"

int
e4m_mfw_init(struct e4m_dev *m)
{
	RTE_SET_USED(m);
	return 0;
}

void
e4m_mfw_fini(struct e4m_dev *m)
{
	RTE_SET_USED(m);
}

int
e4m_mfw_link_set(struct e4m_dev *m, unsigned int port, bool up, uint32_t speed_mbps)
{
	RTE_SET_USED(m);
	RTE_SET_USED(port);
	RTE_SET_USED(up);
	RTE_SET_USED(speed_mbps);
	return -ENOTSUP;
}
