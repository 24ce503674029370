/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* opa-em apply, status and watch. */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>

#include "em_cmd.h"
#include "opa16b_fm.h"

#define EM_MAX_NODES EM_CONFIG_MAX_VPORTS /* at most one node per vport */

static const char *
state_name(uint8_t s)
{
	return s == VNIC_STATE_FORWARDING ? "forwarding" : s == VNIC_STATE_DROP_ALL ? "drop_all" : "?";
}

static const char *
link_name(uint8_t s)
{
	return s == VNIC_LINK_UP ? "up" : s == VNIC_LINK_DOWN ? "down" : "?";
}

static int
worse(int a, int b)
{
	return a > b ? a : b;
}

int
em_outcome(const struct em_vport *vp, uint32_t lid, const char *what, int ret, uint16_t status,
	unsigned int tries)
{
	if (ret == -ETIMEDOUT) {
		if (vp != NULL)
			printf("node %u vport %u: %s: no reply after %u tries\n", lid, vp->index,
			       what, tries);
		else
			printf("node %u: %s: no reply after %u tries\n", lid, what, tries);
		return EM_EXIT_UNREACHABLE;
	}
	if (ret != 0) {
		printf("node %u: %s: %s\n", lid, what, strerror(-ret));
		return EM_EXIT_FAILED;
	}
	if (status != VEMA_STATUS_OK) {
		printf("node %u vport %u: %s: status 0x%04x (%s)\n", lid, vp ? vp->index : 0, what,
		       status, vema_status_name(status));
		return EM_EXIT_FAILED;
	}
	return EM_EXIT_OK;
}

/* --- ClassPortInfo: point the node's traps at us --- */

int
em_setup_node(struct em_client *c, const struct em_config *cfg, uint32_t lid)
{
	uint8_t data[VEMA_DATA_LEN], buf[VEMA_CPI_LEN];
	struct vema_class_port_info cpi;
	uint16_t st;
	int ret, rc;

	ret = em_call(c, lid, VEMA_METHOD_GET, VEMA_ATTR_CLASS_PORT_INFO, 0, NULL, 0, data, &st);
	rc = em_outcome(NULL, lid, "GET ClassPortInfo", ret, st, c->retries + 1);
	if (rc != EM_EXIT_OK)
		return rc;
	vema_cpi_decode(data, &cpi);
	cpi.trap_lid = c->lid;
	cpi.trap_sl_rsvd = (uint8_t)(cfg->sl << 3);
	cpi.trap_pkey = cfg->pkey;
	cpi.trap_hl_qp = OPA16B_QPN_GSI;
	vema_cpi_encode(buf, &cpi);
	ret = em_call(c, lid, VEMA_METHOD_SET, VEMA_ATTR_CLASS_PORT_INFO, 0, buf, sizeof(buf),
		      data, &st);
	rc = em_outcome(NULL, lid, "SET ClassPortInfo", ret, st, c->retries + 1);
	if (rc != EM_EXIT_OK)
		return rc;
	vema_cpi_decode(data, &cpi);
	if (cpi.trap_lid != c->lid) {
		printf("node %u: ClassPortInfo trap_lid reads back %u, want %u\n", lid,
		       cpi.trap_lid, c->lid);
		return EM_EXIT_FAILED;
	}
	return EM_EXIT_OK;
}

/* --- VESWPORT_INFO diff --- */

/* Print every EM-written field that differs (the digest with @digest). */
static int
diff_info(const struct em_vport *vp, const uint8_t *want, const uint8_t *got, bool digest)
{
	struct em_info_diff d[64];
	unsigned int i, n;

	n = em_vport_info_diff(want, got, digest, d, RTE_DIM(d));
	for (i = 0; i < n && i < RTE_DIM(d); i++)
		printf("node %u vport %u: %s: want %s, got %s\n", vp->node_lid, vp->index,
		       d[i].name, d[i].want, d[i].got);
	return (int)n;
}

/* --- MAC table: read all, write the chunks that differ, read back --- */

#define CHUNK ((unsigned int)VEMA_MAC_ENTRIES_MAX)

int
em_mac_table_read(struct em_client *c, const struct em_vport *vp, uint8_t *tbl, uint32_t *digest)
{
	uint8_t req[VEMA_MAC_TBL_HDR_LEN], data[VEMA_DATA_LEN];
	struct vema_mac_tbl_hdr h, want;
	unsigned int off;
	uint16_t st;
	int ret, rc;

	for (off = 0; off < VNIC_MAC_TBL_MAX; off += CHUNK) {
		h = (struct vema_mac_tbl_hdr){
			.offset = (uint16_t)off,
			.num_entries = (uint16_t)RTE_MIN(CHUNK, (unsigned int)VNIC_MAC_TBL_MAX - off),
		};
		vema_mac_tbl_hdr_encode(req, &h);
		ret = em_call(c, vp->node_lid, VEMA_METHOD_GET, VEMA_ATTR_MAC_ENTRIES, vp->index,
			      req, sizeof(req), data, &st);
		rc = em_outcome(vp, vp->node_lid, "GET VESWPORT_MAC_ENTRIES", ret, st,
				c->retries + 1);
		if (rc != EM_EXIT_OK)
			return rc;
		want = h;
		vema_mac_tbl_hdr_decode(data, &h);
		/* the node's reply is untrusted: it must be the range asked for */
		if (h.offset != want.offset || h.num_entries != want.num_entries) {
			printf("node %u vport %u: GET VESWPORT_MAC_ENTRIES: reply covers %u+%u, asked %u+%u\n",
			       vp->node_lid, vp->index, h.offset, h.num_entries, want.offset,
			       want.num_entries);
			return EM_EXIT_FAILED;
		}
		*digest = h.digest;
		memcpy(tbl + (size_t)off * VEMA_MAC_ENTRY_LEN, data + VEMA_MAC_TBL_HDR_LEN,
		       (size_t)h.num_entries * VEMA_MAC_ENTRY_LEN);
	}
	return EM_EXIT_OK;
}

static uint8_t cur_tbl[VNIC_MAC_TBL_MAX * VEMA_MAC_ENTRY_LEN];
static uint8_t want_tbl[VNIC_MAC_TBL_MAX * VEMA_MAC_ENTRY_LEN];

int
em_mac_table_write(struct em_client *c, const struct em_vport *vp, const uint8_t *cur,
		   uint32_t cur_digest, const uint8_t *want, uint32_t digest, unsigned int *writes)
{
	uint8_t req[VEMA_MAC_TBL_HDR_LEN + CHUNK * VEMA_MAC_ENTRY_LEN], data[VEMA_DATA_LEN];
	struct vema_mac_tbl_hdr h, got;
	unsigned int off, n;
	uint16_t st;
	int rc, ret;

	for (off = 0; off < VNIC_MAC_TBL_MAX; off += CHUNK) {
		n = RTE_MIN(CHUNK, (unsigned int)VNIC_MAC_TBL_MAX - off);
		/* the first chunk also carries the digest when only it differs */
		if (memcmp(cur + off * VEMA_MAC_ENTRY_LEN, want + off * VEMA_MAC_ENTRY_LEN,
			   n * VEMA_MAC_ENTRY_LEN) == 0 &&
		    !(off == 0 && cur_digest != digest))
			continue;
		h = (struct vema_mac_tbl_hdr){
			.offset = (uint16_t)off, .num_entries = (uint16_t)n, .digest = digest
		};
		vema_mac_tbl_hdr_encode(req, &h);
		memcpy(req + VEMA_MAC_TBL_HDR_LEN, want + off * VEMA_MAC_ENTRY_LEN,
		       n * VEMA_MAC_ENTRY_LEN);
		ret = em_call(c, vp->node_lid, VEMA_METHOD_SET, VEMA_ATTR_MAC_ENTRIES, vp->index,
			      req, VEMA_MAC_TBL_HDR_LEN + n * VEMA_MAC_ENTRY_LEN, data, &st);
		rc = em_outcome(vp, vp->node_lid, "SET VESWPORT_MAC_ENTRIES", ret, st,
				c->retries + 1);
		if (rc != EM_EXIT_OK)
			return rc;
		(*writes)++;
		/* the reply is the node's GET of that range: what it now holds */
		vema_mac_tbl_hdr_decode(data, &got);
		if (got.offset != h.offset || got.num_entries != h.num_entries) {
			printf("node %u vport %u: SET VESWPORT_MAC_ENTRIES: reply covers %u+%u, wrote %u+%u\n",
			       vp->node_lid, vp->index, got.offset, got.num_entries, h.offset,
			       h.num_entries);
			return EM_EXIT_FAILED;
		}
		if (got.digest != digest ||
		    memcmp(data + VEMA_MAC_TBL_HDR_LEN, want + off * VEMA_MAC_ENTRY_LEN,
			   n * VEMA_MAC_ENTRY_LEN) != 0) {
			printf("node %u vport %u: SET VESWPORT_MAC_ENTRIES %u+%u: the reply differs from what was written\n",
			       vp->node_lid, vp->index, h.offset, h.num_entries);
			return EM_EXIT_FAILED;
		}
	}
	return EM_EXIT_OK;
}

static int
apply_mac_table(struct em_client *c, const struct em_vport *vp)
{
	uint32_t digest = 0;
	unsigned int i, writes = 0, diffs = 0;
	int rc;

	memset(want_tbl, 0, sizeof(want_tbl));
	for (i = 0; i < vp->nb_macs; i++)
		vema_mac_entry_encode(want_tbl + i * VEMA_MAC_ENTRY_LEN, &vp->macs[i]);
	rc = em_mac_table_read(c, vp, cur_tbl, &digest);
	if (rc != EM_EXIT_OK)
		return rc;
	rc = em_mac_table_write(c, vp, cur_tbl, digest, want_tbl, vp->digest, &writes);
	if (rc != EM_EXIT_OK)
		return rc;
	/* read back everything: the table must now be exactly the config's */
	if (writes > 0) {
		rc = em_mac_table_read(c, vp, cur_tbl, &digest);
		if (rc != EM_EXIT_OK)
			return rc;
	}
	for (i = 0; i < VNIC_MAC_TBL_MAX; i++) {
		struct vnic_mac_entry w, g;
		char ws[20], gs[20];

		if (memcmp(cur_tbl + i * VEMA_MAC_ENTRY_LEN, want_tbl + i * VEMA_MAC_ENTRY_LEN,
			   VEMA_MAC_ENTRY_LEN) == 0)
			continue;
		vema_mac_entry_decode(want_tbl + i * VEMA_MAC_ENTRY_LEN, &w);
		vema_mac_entry_decode(cur_tbl + i * VEMA_MAC_ENTRY_LEN, &g);
		rte_ether_format_addr(ws, sizeof(ws), &w.mac);
		rte_ether_format_addr(gs, sizeof(gs), &g.mac);
		if (diffs++ < 10)
			printf("node %u vport %u: mac_table[%u]: want %s dlid_sd 0x%x, got %s dlid_sd 0x%x\n",
			       vp->node_lid, vp->index, i, ws, w.dlid_sd, gs, g.dlid_sd);
	}
	if (digest != vp->digest) {
		printf("node %u vport %u: mac_tbl_digest: want 0x%x, got 0x%x\n", vp->node_lid,
		       vp->index, vp->digest, digest);
		diffs++;
	}
	if (diffs > 0) {
		printf("node %u vport %u: MAC table differs in %u places\n", vp->node_lid,
		       vp->index, diffs);
		return EM_EXIT_FAILED;
	}
	return EM_EXIT_OK;
}

static int
apply_vport(struct em_client *c, const struct em_config *cfg, const struct em_vport *vp)
{
	uint8_t want[VEMA_VESWPORT_INFO_LEN], data[VEMA_DATA_LEN];
	struct vnic_vesw_info vesw;
	struct vnic_port_info port;
	uint16_t st;
	int ret, rc;

	em_vport_info(cfg, vp, &vesw, &port);
	/* the digest is set with the MAC table; send the node's value unchanged */
	vema_veswport_info_encode(want, &vesw, &port);
	ret = em_call(c, vp->node_lid, VEMA_METHOD_SET, VEMA_ATTR_VESWPORT_INFO, vp->index, want,
		      sizeof(want), data, &st);
	rc = em_outcome(vp, vp->node_lid, "SET VESWPORT_INFO", ret, st, c->retries + 1);
	if (rc != EM_EXIT_OK)
		return rc;
	rc = apply_mac_table(c, vp);
	if (rc != EM_EXIT_OK)
		return rc;
	/* verify with a fresh GET: the SET's reply predates the MAC table */
	ret = em_call(c, vp->node_lid, VEMA_METHOD_GET, VEMA_ATTR_VESWPORT_INFO, vp->index, NULL, 0,
		      data, &st);
	rc = em_outcome(vp, vp->node_lid, "GET VESWPORT_INFO", ret, st, c->retries + 1);
	if (rc != EM_EXIT_OK)
		return rc;
	if (diff_info(vp, want, data, true) != 0)
		return EM_EXIT_FAILED;
	return EM_EXIT_OK;
}

int
em_set_vport_info(struct em_client *c, const struct em_config *cfg, const struct em_vport *vp)
{
	uint8_t want[VEMA_VESWPORT_INFO_LEN], data[VEMA_DATA_LEN];
	uint16_t st;
	int ret, rc;

	em_vport_info_encode(cfg, vp, want);
	ret = em_call(c, vp->node_lid, VEMA_METHOD_SET, VEMA_ATTR_VESWPORT_INFO, vp->index, want,
		      sizeof(want), data, &st);
	rc = em_outcome(vp, vp->node_lid, "SET VESWPORT_INFO", ret, st, c->retries + 1);
	if (rc != EM_EXIT_OK)
		return rc;
	/* the reply is the node's GET after the SET; the digest goes with the table */
	return diff_info(vp, want, data, false) != 0 ? EM_EXIT_FAILED : EM_EXIT_OK;
}

/* The distinct nodes of a configuration, in order of appearance. */
static uint32_t nodes[EM_MAX_NODES];
static int node_rc[EM_MAX_NODES];
static unsigned int nb_nodes;

/* Point every node's traps at us; remember which nodes answered. */
static int
setup_nodes(struct em_client *c, const struct em_config *cfg, volatile sig_atomic_t *stop)
{
	unsigned int i, j;
	int rc = EM_EXIT_OK;

	nb_nodes = 0;
	for (i = 0; i < cfg->nb_vports; i++) {
		for (j = 0; j < nb_nodes; j++)
			if (nodes[j] == cfg->vports[i].node_lid)
				break;
		if (j == nb_nodes)
			nodes[nb_nodes++] = cfg->vports[i].node_lid;
	}
	for (j = 0; j < nb_nodes && (stop == NULL || !*stop); j++) {
		node_rc[j] = em_setup_node(c, cfg, nodes[j]);
		rc = worse(rc, node_rc[j]);
	}
	return rc;
}

static bool
node_unreachable(uint32_t lid)
{
	unsigned int j;

	for (j = 0; j < nb_nodes; j++)
		if (nodes[j] == lid)
			return node_rc[j] == EM_EXIT_UNREACHABLE;
	return false;
}

int
em_cmd_apply(struct em_client *c, const struct em_config *cfg)
{
	return em_apply(c, cfg, NULL);
}

int
em_apply(struct em_client *c, const struct em_config *cfg, int *vport_rc)
{
	unsigned int i;
	int rc;

	rc = setup_nodes(c, cfg, c->stop);
	for (i = 0; i < cfg->nb_vports && !*c->stop; i++) {
		const struct em_vport *vp = &cfg->vports[i];
		char mac[RTE_ETHER_ADDR_FMT_SIZE];
		int vrc;

		rte_ether_format_addr(mac, sizeof(mac), &vp->mac);
		if (node_unreachable(vp->node_lid)) {
			printf("node %u vport %u: skipped: node unreachable\n", vp->node_lid,
			       vp->index);
			if (vport_rc != NULL)
				vport_rc[i] = EM_EXIT_UNREACHABLE;
			continue;
		}
		vrc = apply_vport(c, cfg, vp);
		if (vport_rc != NULL)
			vport_rc[i] = vrc;
		printf("node %u vport %u: vesw %u mac %s %u MAC entries: %s\n", vp->node_lid,
		       vp->index, vp->vesw_id, mac, vp->nb_macs,
		       vrc == EM_EXIT_OK ? "applied" : "FAILED");
		rc = worse(rc, vrc);
	}
	return rc;
}

/* --- status --- */

static void
print_grp(const char *dir, const struct vnic_grp_stats *g)
{
	printf(" %s_unicast=%" PRIu64 " %s_mcastbcast=%" PRIu64 " %s_untagged=%" PRIu64
	       " %s_vlan=%" PRIu64, dir, g->unicast, dir, g->mcastbcast, dir, g->untagged,
	       dir, g->vlan);
	printf(" %s_64=%" PRIu64 " %s_65_127=%" PRIu64 " %s_128_255=%" PRIu64
	       " %s_256_511=%" PRIu64 " %s_512_1023=%" PRIu64 " %s_1024_1518=%" PRIu64
	       " %s_1519_max=%" PRIu64, dir, g->size[0], dir, g->size[1], dir, g->size[2],
	       dir, g->size[3], dir, g->size[4], dir, g->size[5], dir, g->size[6]);
}

static int
status_vport(struct em_client *c, const struct em_vport *vp)
{
	uint8_t data[VEMA_DATA_LEN];
	struct vnic_vesw_info vesw;
	struct vnic_port_info port;
	struct vema_counters_hdr h;
	struct vnic_counters s, e;
	char mac[RTE_ETHER_ADDR_FMT_SIZE];
	uint16_t st;
	int ret, rc;

	ret = em_call(c, vp->node_lid, VEMA_METHOD_GET, VEMA_ATTR_VESWPORT_INFO, vp->index, NULL, 0,
		      data, &st);
	rc = em_outcome(vp, vp->node_lid, "GET VESWPORT_INFO", ret, st, c->retries + 1);
	if (rc != EM_EXIT_OK)
		return rc;
	vema_veswport_info_decode(data, &vesw, &port);
	rte_ether_format_addr(mac, sizeof(mac), &port.base_mac_addr);
	printf("vport node=%u index=%u vesw=%u mac=%s config=%s oper=%s link=%s mtu=%u"
	       " encap_slid=%u mac_tbl_digest=0x%x uc_gen=%u mc_gen=%u\n",
	       vp->node_lid, vp->index, vesw.vesw_id, mac, state_name(port.config_state),
	       state_name(port.oper_state), link_name(port.eth_link_status), vesw.eth_mtu,
	       port.encap_slid, port.mac_tbl_digest, port.uc_macs_gen_count,
	       port.mc_macs_gen_count);

	ret = em_call(c, vp->node_lid, VEMA_METHOD_GET, VEMA_ATTR_SUMMARY_COUNTERS, vp->index, NULL,
		      0, data, &st);
	rc = em_outcome(vp, vp->node_lid, "GET VESWPORT_SUMMARY_COUNTERS", ret, st, c->retries + 1);
	if (rc != EM_EXIT_OK)
		return rc;
	memset(&s, 0, sizeof(s));
	vema_summary_decode(data, &h, &s);
	printf("summary node=%u index=%u veswport_num=%u tx_errors=%" PRIu64 " rx_errors=%" PRIu64
	       " tx_packets=%" PRIu64 " rx_packets=%" PRIu64 " tx_bytes=%" PRIu64
	       " rx_bytes=%" PRIu64, vp->node_lid, vp->index, h.veswport_num, s.tx_errors,
	       s.rx_errors, s.tx_packets, s.rx_packets, s.tx_bytes, s.rx_bytes);
	print_grp("tx", &s.tx);
	print_grp("rx", &s.rx);
	printf("\n");

	ret = em_call(c, vp->node_lid, VEMA_METHOD_GET, VEMA_ATTR_ERROR_COUNTERS, vp->index, NULL,
		      0, data, &st);
	rc = em_outcome(vp, vp->node_lid, "GET VESWPORT_ERROR_COUNTERS", ret, st, c->retries + 1);
	if (rc != EM_EXIT_OK)
		return rc;
	memset(&e, 0, sizeof(e));
	vema_errors_decode(data, &h, &e);
	printf("errors node=%u index=%u tx_errors=%" PRIu64 " rx_errors=%" PRIu64
	       " tx_smac_filt=%" PRIu64 " tx_dlid_zero=%" PRIu64 " tx_logic=%" PRIu64
	       " tx_drop_state=%" PRIu64 " rx_bad_veswid=%" PRIu64 " rx_runt=%" PRIu64
	       " rx_oversize=%" PRIu64 " rx_eth_down=%" PRIu64 " rx_drop_state=%" PRIu64
	       " rx_logic=%" PRIu64 "\n", vp->node_lid, vp->index, e.tx_errors, e.rx_errors,
	       e.tx_smac_filt, e.tx_dlid_zero, e.tx_logic, e.tx_drop_state, e.rx_bad_veswid,
	       e.rx_runt, e.rx_oversize, e.rx_eth_down, e.rx_drop_state, e.rx_logic);
	return EM_EXIT_OK;
}

/*
 * Run @fn on every vport of @cfg, one node after another; after a node
 * times out once its other vports are skipped (said, not asked): status and
 * table read, they change nothing. @return the worst outcome.
 */
static int
each_vport(struct em_client *c, const struct em_config *cfg,
	   int (*fn)(struct em_client *c, const struct em_vport *vp))
{
	static uint32_t dead[EM_MAX_NODES];
	unsigned int i, j, nb_dead = 0;
	int rc = EM_EXIT_OK, vrc;

	for (i = 0; i < cfg->nb_vports && !*c->stop; i++) {
		const struct em_vport *vp = &cfg->vports[i];

		for (j = 0; j < nb_dead && dead[j] != vp->node_lid; j++)
			;
		if (j < nb_dead) {
			printf("node %u vport %u: skipped: node unreachable\n", vp->node_lid,
			       vp->index);
			continue;
		}
		vrc = fn(c, vp);
		if (vrc == EM_EXIT_UNREACHABLE)
			dead[nb_dead++] = vp->node_lid;
		rc = worse(rc, vrc);
	}
	return rc;
}

int
em_cmd_status(struct em_client *c, const struct em_config *cfg)
{
	return each_vport(c, cfg, status_vport);
}

/* --- table --- */

static int
table_vport(struct em_client *c, const struct em_vport *vp)
{
	unsigned int i, used = 0;
	uint32_t digest = 0;
	int rc;

	rc = em_mac_table_read(c, vp, cur_tbl, &digest);
	if (rc != EM_EXIT_OK)
		return rc;
	for (i = 0; i < VNIC_MAC_TBL_MAX; i++) {
		struct vnic_mac_entry e;

		vema_mac_entry_decode(cur_tbl + i * VEMA_MAC_ENTRY_LEN, &e);
		used += !rte_is_zero_ether_addr(&e.mac);
	}
	printf("mac_table node=%u index=%u digest=0x%x entries=%u\n", vp->node_lid, vp->index,
	       digest, used);
	for (i = 0; i < VNIC_MAC_TBL_MAX; i++) {
		char mac[RTE_ETHER_ADDR_FMT_SIZE], mask[RTE_ETHER_ADDR_FMT_SIZE];
		struct vnic_mac_entry e;

		vema_mac_entry_decode(cur_tbl + i * VEMA_MAC_ENTRY_LEN, &e);
		if (rte_is_zero_ether_addr(&e.mac))
			continue;
		rte_ether_format_addr(mac, sizeof(mac), &e.mac);
		rte_ether_format_addr(mask, sizeof(mask), &e.mask);
		printf("entry node=%u index=%u slot=%u mac=%s dlid=%u%s%s%s\n", vp->node_lid,
		       vp->index, i, mac, e.dlid_sd >> VNIC_DLID_SD_SHIFT,
		       (e.dlid_sd & VNIC_DLID_SD_SMAC) ? " smac=1" : "",
		       rte_is_zero_ether_addr(&e.mask) ? "" : " mask=",
		       rte_is_zero_ether_addr(&e.mask) ? "" : mask);
	}
	return EM_EXIT_OK;
}

int
em_cmd_table(struct em_client *c, const struct em_config *cfg)
{
	return each_vport(c, cfg, table_vport);
}

/* --- watch --- */

#define TRAPQ_SIZE 64

struct trapq {
	struct em_trap q[TRAPQ_SIZE];
	unsigned int head, tail;
	uint64_t overflow;
};

static void
queue_trap(void *arg, const struct em_trap *t)
{
	struct trapq *tq = arg;

	if (tq->tail - tq->head == TRAPQ_SIZE) {
		tq->overflow++;
		return;
	}
	tq->q[tq->tail++ % TRAPQ_SIZE] = *t;
}

static const char *
opcode_name(uint8_t op)
{
	switch (op) {
	case VEMA_TRAP_UCAST_MAC_CHANGE:
		return "ucast_mac_change";
	case VEMA_TRAP_MCAST_MAC_CHANGE:
		return "mcast_mac_change";
	case VEMA_TRAP_LINK_STATUS_CHANGE:
		return "link_status_change";
	default:
		return "unknown";
	}
}

/* Read a whole interface MAC list (several MADs when long) and print it. */
static int
print_iface_macs(struct em_client *c, uint32_t lid, uint8_t index, uint16_t attr)
{
	uint8_t req[VEMA_IFACE_HDR_LEN], data[VEMA_DATA_LEN];
	struct vema_iface_hdr h = { 0 };
	char mac[RTE_ETHER_ADDR_FMT_SIZE];
	unsigned int start = 0, total, i;
	uint16_t st;
	int ret, rc;

	printf("%s node=%u index=%u", attr == VEMA_ATTR_IFACE_UCAST_MACS ? "ucast_macs" :
	       "mcast_macs", lid, index);
	do {
		h = (struct vema_iface_hdr){ .start_idx = (uint16_t)start };
		vema_iface_hdr_encode(req, &h);
		ret = em_call(c, lid, VEMA_METHOD_GET, attr, index, req, sizeof(req), data, &st);
		rc = em_outcome(NULL, lid, vema_attr_name(attr), ret, st, c->retries + 1);
		if (rc != EM_EXIT_OK) {
			printf("\n");
			return rc;
		}
		vema_iface_hdr_decode(data, &h);
		if (start == 0)
			printf(" gen=%u total=%u macs=", h.gen_count, h.tot_macs_in_lst);
		for (i = 0; i < h.num_macs_in_msg && i < VEMA_IFACE_MACS_MAX; i++) {
			struct rte_ether_addr a;

			memcpy(a.addr_bytes, data + VEMA_IFACE_HDR_LEN + 6 * i, 6);
			rte_ether_format_addr(mac, sizeof(mac), &a);
			printf("%s%s", start + i ? "," : "", mac);
		}
		start += h.num_macs_in_msg;
		total = h.tot_macs_in_lst;
	} while (h.num_macs_in_msg > 0 && start < total);
	printf("\n");
	return EM_EXIT_OK;
}

static int
handle_event(struct em_client *c, const struct em_trap *t)
{
	uint8_t data[VEMA_DATA_LEN];
	struct vnic_vesw_info vesw;
	struct vnic_port_info port;
	uint16_t st;
	int ret, rc;

	printf("trap node=%u index=%u vesw=%u fabric=%u veswport_num=%u opa_port=%u opcode=%s tid=%"
	       PRIu64 "\n", t->slid, t->t.vport_index, t->t.vesw_id, t->t.fabric_id,
	       t->t.veswport_num, t->t.opa_port_num, opcode_name(t->t.opcode), t->tid);
	switch (t->t.opcode) {
	case VEMA_TRAP_UCAST_MAC_CHANGE:
		return print_iface_macs(c, t->slid, t->t.vport_index, VEMA_ATTR_IFACE_UCAST_MACS);
	case VEMA_TRAP_MCAST_MAC_CHANGE:
		return print_iface_macs(c, t->slid, t->t.vport_index, VEMA_ATTR_IFACE_MCAST_MACS);
	case VEMA_TRAP_LINK_STATUS_CHANGE:
		ret = em_call(c, t->slid, VEMA_METHOD_GET, VEMA_ATTR_VESWPORT_INFO,
			      t->t.vport_index, NULL, 0, data, &st);
		rc = em_outcome(NULL, t->slid, "GET VESWPORT_INFO", ret, st, c->retries + 1);
		if (rc != EM_EXIT_OK)
			return rc;
		vema_veswport_info_decode(data, &vesw, &port);
		printf("link node=%u index=%u status=%s oper=%s\n", t->slid, t->t.vport_index,
		       link_name(port.eth_link_status), state_name(port.oper_state));
		return EM_EXIT_OK;
	default:
		return EM_EXIT_OK;
	}
}

int
em_cmd_watch(struct em_client *c, const struct em_config *cfg, const struct em_watch_opts *o,
	     volatile sig_atomic_t *stop)
{
	static struct trapq tq;
	uint64_t deadline = o->seconds ?
		rte_get_timer_cycles() + rte_get_timer_hz() * o->seconds : UINT64_MAX;
	unsigned int seen = 0;
	int rc = EM_EXIT_OK;

	c->on_trap = queue_trap;
	c->trap_arg = &tq;
	c->repress = true;
	rc = setup_nodes(c, cfg, NULL);
	printf("watching: traps to LID %u\n", c->lid);
	fflush(stdout);
	while (!*stop && rte_get_timer_cycles() < deadline && (o->count == 0 || seen < o->count)) {
		em_listen(c, 100, stop);
		while (tq.head != tq.tail) {
			struct em_trap t = tq.q[tq.head++ % TRAPQ_SIZE];

			rc = worse(rc, handle_event(c, &t));
			seen++;
			fflush(stdout);
		}
	}
	if (tq.overflow)
		printf("watch: %" PRIu64 " traps lost (queue full)\n", tq.overflow);
	printf("watch: %u traps\n", seen);
	if (o->count != 0 && seen < o->count)
		rc = worse(rc, EM_EXIT_UNREACHABLE);
	return rc;
}
