/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* The opa-switch forwarding decision: LFT, multicast flooding, learning. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sw_fwd.h"

/* The permissive LID is not multicast (as hfi1_is_16B_mcast() has it); it
 * addresses the switch's own SMA, which this model does not have. */
#define SW_LID_PERMISSIVE OPA16B_LID_MAX

static const char *const verdict_names[SW_VERDICT_MAX] = {
	[SW_UCAST] = "ucast",
	[SW_MCAST] = "mcast",
	[SW_FLOOD] = "flood",
	[SW_DROP_SHORT] = "short",
	[SW_DROP_NOT_16B] = "not_16b",
	[SW_DROP_BAD_LENGTH] = "bad_length",
	[SW_DROP_NO_ROUTE] = "no_route",
	[SW_DROP_TO_INGRESS] = "to_ingress",
	[SW_DROP_LINK_DOWN] = "link_down",
	[SW_DROP_TX_FULL] = "tx_full",
};

const char *
sw_verdict_name(unsigned int v)
{
	return v < SW_VERDICT_MAX ? verdict_names[v] : "?";
}

int
sw_fwd_table_init(struct sw_fwd_table *t, uint16_t nb_ports, bool learn)
{
	memset(t, 0, sizeof(*t));
	if (nb_ports == 0 || nb_ports > SW_PORTS_MAX)
		return -EINVAL;
	/* 15 MiB, but calloc's pages are only backed once an entry is written */
	t->lft = calloc(SW_LFT_SIZE, sizeof(t->lft[0]));
	if (t->lft == NULL)
		return -ENOMEM;
	t->nb_ports = nb_ports;
	t->learn = learn;
	return 0;
}

void
sw_fwd_table_free(struct sw_fwd_table *t)
{
	free(t->lft);
	t->lft = NULL;
}

static void
learned_remove(struct sw_fwd_table *t, uint32_t i)
{
	t->learned[i] = t->learned[--t->nb_learned];
}

int
sw_fwd_route_set(struct sw_fwd_table *t, uint32_t lid, uint16_t port)
{
	uint32_t i;

	if (lid == 0 || lid >= SW_LFT_SIZE || port >= t->nb_ports)
		return -EINVAL;
	if (t->lft[lid] & SW_LFT_LEARNED) {
		for (i = 0; i < t->nb_learned; i++) {
			if (t->learned[i] == lid) {
				learned_remove(t, i);
				break;
			}
		}
	}
	t->lft[lid] = (uint8_t)(port + 1);
	return 0;
}

int
sw_fwd_lookup(const struct sw_fwd_table *t, uint32_t lid, bool *learned)
{
	uint8_t e;

	if (lid >= SW_LFT_SIZE || t->lft[lid] == 0)
		return -1;
	e = t->lft[lid];
	if (learned != NULL)
		*learned = (e & SW_LFT_LEARNED) != 0;
	return (e & SW_LFT_PORT_MASK) - 1;
}

/* The checks every packet passes before its DLID is looked at. */
static enum sw_verdict
check_hdr(const void *hdr, uint32_t len)
{
	if (len < OPA16B_LRH_LEN)
		return SW_DROP_SHORT;
	if (opa16b_get_l2(hdr) != OPA16B_L2_16B)
		return SW_DROP_NOT_16B;
	/* the Length field counts the whole packet, ICRC and tail included */
	if ((uint32_t)opa16b_get_len(hdr) * 8 != len)
		return SW_DROP_BAD_LENGTH;
	return SW_UCAST;
}

/* Every port but @p in_port whose link is up. */
static enum sw_verdict
flood(const struct sw_fwd_table *t, uint16_t in_port, uint64_t up, enum sw_verdict kind,
      uint64_t *egress)
{
	uint64_t all = t->nb_ports >= 64 ? UINT64_MAX : (UINT64_C(1) << t->nb_ports) - 1;
	uint64_t in_bit = in_port < SW_PORTS_MAX ? UINT64_C(1) << in_port : 0;
	uint64_t out = up & all & ~in_bit;

	if (out == 0)
		return SW_DROP_LINK_DOWN;
	*egress = out;
	return kind;
}

enum sw_verdict
sw_fwd_decide(const struct sw_fwd_table *t, const void *hdr, uint32_t len, uint16_t in_port,
	      uint64_t up, uint64_t *egress)
{
	enum sw_verdict v = check_hdr(hdr, len);
	uint32_t dlid;
	unsigned int port;
	uint8_t e;

	*egress = 0;
	if (v != SW_UCAST)
		return v;
	dlid = opa16b_get_dlid(hdr);
	if (dlid >= OPA16B_MCAST_DLID_BASE && dlid != SW_LID_PERMISSIVE)
		return flood(t, in_port, up, SW_MCAST, egress);
	if (dlid >= SW_LFT_SIZE || dlid == 0)
		return SW_DROP_NO_ROUTE;
	e = t->lft[dlid];
	if (e == 0)
		return t->learn ? flood(t, in_port, up, SW_FLOOD, egress) : SW_DROP_NO_ROUTE;
	port = (e & SW_LFT_PORT_MASK) - 1u;
	if (port >= t->nb_ports)
		return SW_DROP_NO_ROUTE;
	if (port == in_port)
		return SW_DROP_TO_INGRESS;
	if (!(up & (UINT64_C(1) << port)))
		return SW_DROP_LINK_DOWN;
	*egress = UINT64_C(1) << port;
	return SW_UCAST;
}

bool
sw_fwd_learn(struct sw_fwd_table *t, const void *hdr, uint32_t len, uint16_t in_port)
{
	uint32_t slid;
	uint8_t e, ne;

	if (!t->learn || in_port >= t->nb_ports || check_hdr(hdr, len) != SW_UCAST)
		return false;
	slid = opa16b_get_slid(hdr);
	if (slid == 0 || slid >= SW_LFT_SIZE)
		return false;
	e = t->lft[slid];
	if (e != 0 && !(e & SW_LFT_LEARNED))
		return false;	/* the SM's entry wins */
	ne = (uint8_t)(SW_LFT_LEARNED | (in_port + 1));
	if (e == ne)
		return false;
	if (e == 0) {
		if (t->nb_learned == SW_LEARN_MAX) {
			t->learn_full++;
			return false;
		}
		t->learned[t->nb_learned++] = slid;
	}
	t->lft[slid] = ne;
	return true;
}

unsigned int
sw_fwd_forget_port(struct sw_fwd_table *t, uint16_t port)
{
	uint8_t e = (uint8_t)(SW_LFT_LEARNED | (port + 1));
	unsigned int n = 0;
	uint32_t i = 0;

	while (i < t->nb_learned) {
		if (t->lft[t->learned[i]] == e) {
			t->lft[t->learned[i]] = 0;
			learned_remove(t, i);
			n++;
		} else {
			i++;
		}
	}
	return n;
}
