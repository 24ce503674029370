/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * libFuzzer target: opa-em serve's reader of IFACE_UCAST_MACS replies (a
 * node's untrusted answers) and what it feeds, the MAC-table computation.
 * Input: replies, each a 2-byte big-endian length and that many bytes
 * (padded with zeros to a MAD's data, as em_call() hands them over). The
 * reader either refuses a reply or keeps every bound; a whole list goes to
 * vport 0 of a vesw of three, vport 1 reports the same list rotated, and
 * the tables must keep the rules: statics first and unchanged, no entry
 * for a vport's own MACs, no MAC twice, DLIDs of the reporters.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "em_learn.h"
#include "vema_mad.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NV 3

static struct em_iface_read rd;
static struct em_learn_list lists[NV];
static struct vnic_mac_entry prev[NV][VNIC_MAC_TBL_MAX], next[NV][VNIC_MAC_TBL_MAX];

static int
mac_cmp(const void *a, const void *b)
{
	return memcmp(a, b, RTE_ETHER_ADDR_LEN);
}

static void
check_table(const struct em_learn_vport *v, unsigned int i, const struct vnic_mac_entry *t)
{
	static struct rte_ether_addr all[VNIC_MAC_TBL_MAX], own[EM_LEARN_LIST_MAX];
	unsigned int k, n = 0;

	for (k = 0; k < v[i].nb_statics; k++)
		if (memcmp(&t[k], &v[i].statics[k], sizeof(t[k])) != 0)
			abort();
	memcpy(own, lists[i].mac, sizeof(own[0]) * lists[i].n);
	qsort(own, lists[i].n, sizeof(own[0]), mac_cmp);
	for (k = 0; k < VNIC_MAC_TBL_MAX; k++) {
		uint32_t dlid = t[k].dlid_sd >> VNIC_DLID_SD_SHIFT;

		if (rte_is_zero_ether_addr(&t[k].mac))
			continue;
		all[n++] = t[k].mac;
		if (k < v[i].nb_statics)
			continue;
		if (!rte_is_valid_assigned_ether_addr(&t[k].mac) || dlid < 2 || dlid > 4 ||
		    dlid == v[i].dlid)
			abort();
		if (bsearch(&t[k].mac, own, lists[i].n, sizeof(own[0]), mac_cmp) != NULL)
			abort(); /* its own MAC */
	}
	qsort(all, n, sizeof(all[0]), mac_cmp);
	for (k = 1; k < n; k++)
		if (mac_cmp(&all[k - 1], &all[k]) == 0)
			abort(); /* twice */
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct vnic_mac_entry st[2] = {
		{ .mac = { { 0x02, 0xEE, 0, 0, 0, 1 } }, .dlid_sd = 9 << VNIC_DLID_SD_SHIFT },
		{ .mac = { { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55 } },
		  .dlid_sd = 8 << VNIC_DLID_SD_SHIFT },
	};
	struct em_learn_vport v[NV] = {
		{ .vesw_id = 1, .dlid = 2, .list = &lists[0] },
		{ .vesw_id = 1, .dlid = 3, .list = &lists[1] },
		{ .vesw_id = 1, .dlid = 4, .statics = st, .nb_statics = 2, .list = &lists[2] },
	};
	const struct vnic_mac_entry *pp[NV] = { prev[0], prev[1], prev[2] };
	struct vnic_mac_entry *np[NV] = { next[0], next[1], next[2] };
	struct rte_ether_addr rot[EM_LEARN_LIST_MAX];
	uint8_t mad[VEMA_DATA_LEN];
	struct em_learn_result res;
	uint64_t seq = 0;
	unsigned int i;
	char why[128];
	size_t off = 0;
	bool short_reply;
	int ret = 0;

	memset(lists, 0, sizeof(lists));
	memset(prev, 0, sizeof(prev));
	memcpy(prev[2], st, sizeof(st));
	em_iface_read_init(&rd);
	while (ret == 0 && off + 2 <= size) {
		size_t len = (size_t)data[off] << 8 | data[off + 1];

		off += 2;
		len = len < size - off ? len : size - off;
		len = len < sizeof(mad) ? len : sizeof(mad);
		memset(mad, 0, sizeof(mad));
		memcpy(mad, data + off, len);
		off += len;
		/* a length prefix with its top bit set: the reply is that short */
		short_reply = data[off - len - 2] & 0x80;
		ret = em_iface_read_reply(&rd, mad, short_reply ? len : sizeof(mad), why,
					  sizeof(why));
		if (rd.next > rd.total || rd.total > EM_LEARN_LIST_MAX)
			abort();
		if (ret < 0 && why[0] == '\0')
			abort(); /* a refusal says why */
		why[0] = '\0';
	}
	if (ret != 1)
		return 0;
	if (rd.next != rd.total)
		abort();
	(void)em_learn_list_update(&lists[0], rd.mac, rd.next, rd.gen, &seq);
	for (i = 0; i < rd.next; i++)
		rot[i] = rd.mac[(i + 1) % rd.next];
	(void)em_learn_list_update(&lists[1], rot, rd.next, rd.gen, &seq);
	if (em_learn_compute(v, NV, pp, np, &res) != 0)
		return 0;
	for (i = 0; i < NV; i++)
		check_table(v, i, next[i]);
	for (i = 1; i < res.nb_notes; i++)
		if (em_learn_note_cmp(&res.notes[i - 1], &res.notes[i]) >= 0)
			abort(); /* sorted, distinct */
	em_learn_result_free(&res);
	return 0;
}
