/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * libFuzzer target: opa-switch's forwarding decision and learning
 * (app/opa-switch/sw_fwd.c) over arbitrary headers, lengths and port states.
 *
 * Input: nb_ports-1 (1 byte, mod 64), up mask (8, LE), flags (1: bit 0
 * learning), then up to 32 records of in_port (1), packet length (2, LE)
 * and up to 16 header bytes; the last record may be cut short, and its
 * length is cut to what is there. (32 records are plenty to learn, move
 * and forget; more would only slow the run.) Each header sits in a heap block of exactly the bytes
 * the contract lets the decision read, so ASan sees any read beyond.
 * Every verdict is checked against the rules it stands for.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "opa16b.h"
#include "sw_fwd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct sw_fwd_table table;

static void
table_setup(void)
{
	uint32_t lid;

	if (sw_fwd_table_init(&table, SW_PORTS_MAX, false) != 0)
		abort();
	/* a few routes everywhere, some to ports beyond a small switch */
	for (lid = 1; lid <= 80; lid++)
		(void)sw_fwd_route_set(&table, lid, (uint16_t)(lid % SW_PORTS_MAX));
	(void)sw_fwd_route_set(&table, 0x123456, 3);
	(void)sw_fwd_route_set(&table, 0xEFFFFF, 1);
}

static void
check(uint16_t in, uint64_t up, const uint8_t *hdr, uint32_t len, enum sw_verdict v,
      uint64_t egress)
{
	uint64_t all = table.nb_ports >= 64 ? UINT64_MAX :
		(UINT64_C(1) << table.nb_ports) - 1;
	uint64_t in_bit = in < 64 ? UINT64_C(1) << in : 0;
	uint64_t others = up & all & ~in_bit;
	uint32_t dlid;
	int port;

	if (v >= SW_VERDICT_MAX || v == SW_DROP_TX_FULL)
		abort();
	if (sw_verdict_is_drop(v) != (egress == 0))
		abort();
	if ((egress & ~others) != 0)
		abort();
	if (len < OPA16B_LRH_LEN) {
		if (v != SW_DROP_SHORT)
			abort();
		return;
	}
	if (opa16b_get_l2(hdr) != OPA16B_L2_16B) {
		if (v != SW_DROP_NOT_16B)
			abort();
		return;
	}
	if ((uint32_t)opa16b_get_len(hdr) * 8 != len) {
		if (v != SW_DROP_BAD_LENGTH)
			abort();
		return;
	}
	dlid = opa16b_get_dlid(hdr);
	port = sw_fwd_lookup(&table, dlid, NULL);
	switch (v) {
	case SW_UCAST:
		if (port < 0 || egress != UINT64_C(1) << port)
			abort();
		break;
	case SW_MCAST:
		if (dlid < OPA16B_MCAST_DLID_BASE || dlid == OPA16B_LID_MAX || egress != others)
			abort();
		break;
	case SW_FLOOD:
		if (!table.learn || port >= 0 || dlid == 0 || dlid >= OPA16B_MCAST_DLID_BASE ||
		    egress != others)
			abort();
		break;
	case SW_DROP_TO_INGRESS:
		if (port != in)
			abort();
		break;
	case SW_DROP_LINK_DOWN:
		if (port >= 0 ? (up & (UINT64_C(1) << port)) != 0 : others != 0)
			abort();
		break;
	case SW_DROP_NO_ROUTE:
		if (port >= 0 && port < table.nb_ports)
			abort();
		if (dlid >= OPA16B_MCAST_DLID_BASE && dlid != OPA16B_LID_MAX)
			abort();
		if (table.learn && port < 0 && dlid != 0 && dlid < OPA16B_MCAST_DLID_BASE)
			abort();
		break;
	default:
		abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int records = 0;
	uint64_t up = 0;
	size_t off = 10;
	uint16_t p;

	if (table.lft == NULL)
		table_setup();
	if (size < off)
		return 0;
	table.nb_ports = (uint16_t)(data[0] % SW_PORTS_MAX + 1);
	memcpy(&up, data + 1, sizeof(up));
	table.learn = data[9] & 1;

	while (off + 3 <= size && records++ < 32) {
		uint16_t in = data[off] % (SW_PORTS_MAX + 2);
		uint32_t len = data[off + 1] | (uint32_t)data[off + 2] << 8;
		size_t have = size - off - 3 < OPA16B_LRH_LEN ? size - off - 3 : OPA16B_LRH_LEN;
		uint32_t hlen;
		uint64_t egress = 0;
		enum sw_verdict v;
		uint8_t *hdr;
		bool changed;

		/* the caller's contract: min(len, 16) header bytes */
		if (len > have && have < OPA16B_LRH_LEN)
			len = (uint32_t)have;
		hlen = len < OPA16B_LRH_LEN ? len : OPA16B_LRH_LEN;
		hdr = malloc(hlen ? hlen : 1);
		if (hdr == NULL)
			return 0;
		memcpy(hdr, data + off + 3, hlen);

		changed = sw_fwd_learn(&table, hdr, len, in);
		if (changed) {
			bool learned = false;

			if (sw_fwd_lookup(&table, opa16b_get_slid(hdr), &learned) != in || !learned)
				abort();
		}
		if (table.nb_learned > SW_LEARN_MAX)
			abort();
		v = sw_fwd_decide(&table, hdr, len, in, up, &egress);
		check(in, up, hdr, len, v, egress);
		free(hdr);
		off += 3 + have;
	}
	/* the next input starts from the static routes alone */
	for (p = 0; p < SW_PORTS_MAX; p++)
		(void)sw_fwd_forget_port(&table, p);
	if (table.nb_learned != 0)
		abort();
	table.learn_full = 0;
	return 0;
}
