/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* PLACEHOLDER, to be replaced by the model part's implementation. */

#include "e4m_priv.h"

int
e4m_dmae_init(struct e4m_dev *m)
{
	RTE_SET_USED(m);
	return 0;
}

void
e4m_dmae_fini(struct e4m_dev *m)
{
	RTE_SET_USED(m);
}
