/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* Summing per-queue counters into the EM's summary and error view. */

#include <string.h>

#include "vnic_stats.h"

static void
grp_add(struct vnic_grp_stats *sum, const struct vnic_grp_stats *g)
{
	unsigned int i;

	sum->unicast += g->unicast;
	sum->mcastbcast += g->mcastbcast;
	sum->untagged += g->untagged;
	sum->vlan += g->vlan;
	for (i = 0; i < VNIC_SIZE_BUCKETS; i++)
		sum->size[i] += g->size[i];
}

void
vnic_stats_sum(const struct vnic_txq_stats *txq, unsigned int nb_txq,
	       const struct vnic_rxq_stats *rxq, unsigned int nb_rxq,
	       struct vnic_counters *out)
{
	uint64_t tx_fifo = 0, tx_carrier = 0, rx_fifo = 0;
	unsigned int i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < nb_txq; i++) {
		const struct vnic_txq_stats *q = &txq[i];

		out->tx_packets += q->packets;
		out->tx_bytes += q->bytes;
		grp_add(&out->tx, &q->grp);
		out->tx_dlid_zero += q->dlid_zero;
		out->tx_drop_state += q->drop_state;
		out->tx_oversize += q->oversize;
		tx_fifo += q->fifo;
		tx_carrier += q->carrier;
	}
	for (i = 0; i < nb_rxq; i++) {
		const struct vnic_rxq_stats *q = &rxq[i];

		out->rx_packets += q->packets;
		out->rx_bytes += q->bytes;
		grp_add(&out->rx, &q->grp);
		out->rx_drop_state += q->drop_state;
		out->rx_runt += q->runt;
		out->rx_oversize += q->oversize;
		out->rx_bad_veswid += q->bad_veswid;
		rx_fifo += q->fifo;
	}
	out->tx_logic = tx_fifo + tx_carrier;
	out->rx_logic = rx_fifo;
	out->tx_errors = out->tx_logic + out->tx_drop_state + out->tx_dlid_zero +
		out->tx_oversize;
	out->rx_errors = rx_fifo + out->rx_bad_veswid + out->rx_drop_state +
		out->rx_oversize + out->rx_runt;
}
