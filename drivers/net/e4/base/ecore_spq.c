/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/* The slow-path queue, the event queue and the common ramrods (ecore_spq.h). */

#include "ecore_cxt.h"
#include "ecore_hw.h"
#include "ecore_int.h"
#include "ecore_init_fw.h"
#include "ecore_spq.h"

struct ecore_spq {
	ecore_osal_spinlock_t lock;
	struct ecore_chain chain;		/* SINGLE, ECORE_SPQ_RING_SIZE x 16 B */
	struct ecore_dma_mem data_mem;		/* ramrod data of every entry */
	struct ecore_spq_entry ents[ECORE_SPQ_RING_SIZE];
	struct ecore_spq_entry *by_echo[ECORE_SPQ_RING_SIZE];
	struct ecore_spq_echo_map echo;
	uint32_t cid;
	bool cid_valid;
	uint32_t db_addr;
	uint32_t block_timeout_ms;
	struct ecore_spq_stats stats;
};

struct ecore_eq {
	struct ecore_chain chain;		/* PBL of 16 B EQEs */
	uint8_t eq_sb_index;			/* PI of the slow-path SB */
	bool registered;
	volatile uint16_t *p_fw_cons;		/* the firmware's EQ producer */
};

/* ---- the echo bitmap ---- */

void
ecore_spq_echo_init(struct ecore_spq_echo_map *map, uint16_t size)
{
	memset(map, 0, sizeof(*map));
	map->size = size;
}

uint16_t
ecore_spq_echo_in_flight(const struct ecore_spq_echo_map *map)
{
	return map->prod - map->cons;
}

enum _ecore_status_t
ecore_spq_echo_take(struct ecore_spq_echo_map *map, uint16_t *echo)
{
	if (ecore_spq_echo_in_flight(map) >= map->size)
		return ECORE_BUSY;
	*echo = map->prod++;
	return ECORE_SUCCESS;
}

enum ecore_echo_result
ecore_spq_echo_done(struct ecore_spq_echo_map *map, uint16_t echo, uint16_t *retired)
{
	uint16_t bit = echo & (map->size - 1);

	*retired = 0;
	/* in flight: cons <= echo < prod, in u16 arithmetic */
	if ((uint16_t)(echo - map->cons) >= ecore_spq_echo_in_flight(map)) {
		map->unknown++;
		return ECORE_ECHO_UNKNOWN;
	}
	if (map->done[bit / 64] & (1ULL << (bit % 64))) {
		map->dup++;
		return ECORE_ECHO_DUP;
	}
	map->done[bit / 64] |= 1ULL << (bit % 64);
	for (;;) {
		bit = map->cons & (map->size - 1);
		if (map->cons == map->prod || !(map->done[bit / 64] & (1ULL << (bit % 64))))
			break;
		map->done[bit / 64] &= ~(1ULL << (bit % 64));
		map->cons++;
		(*retired)++;
	}
	return ECORE_ECHO_OK;
}

/* ---- SPQ ---- */

void
ecore_spq_free(struct ecore_hwfn *p_hwfn)
{
	struct ecore_spq *spq = p_hwfn->p_spq;

	if (spq == NULL)
		return;
	if (spq->cid_valid && p_hwfn->p_cxt_mngr != NULL)
		ecore_cxt_release_cid(p_hwfn, spq->cid);
	ecore_chain_free(&spq->chain);
	ecore_osal_dma_free(&spq->data_mem);
	ecore_osal_free(spq);
	p_hwfn->p_spq = NULL;
}

enum _ecore_status_t
ecore_spq_alloc(struct ecore_hwfn *p_hwfn)
{
	struct ecore_spq *spq;
	enum _ecore_status_t rc;
	unsigned int i;

	spq = ecore_osal_zalloc(sizeof(*spq));
	if (spq == NULL)
		return ECORE_NOMEM;
	p_hwfn->p_spq = spq;
	ecore_osal_spin_init(&spq->lock);
	spq->block_timeout_ms = ECORE_SPQ_BLOCK_TIMEOUT_MS;
	rc = ecore_chain_alloc(p_hwfn->p_dev, "spq", ECORE_CHAIN_MODE_SINGLE,
			       sizeof(struct slow_path_element), ECORE_SPQ_RING_SIZE, &spq->chain);
	if (rc != ECORE_SUCCESS)
		goto fail;
	if (ecore_osal_dma_alloc(&spq->data_mem, p_hwfn->p_dev->name, "spqdata", p_hwfn->my_id,
				 (size_t)ECORE_SPQ_RING_SIZE * ECORE_SPQ_DATA_SIZE, 4096) != 0) {
		rc = ECORE_NOMEM;
		goto fail;
	}
	for (i = 0; i < ECORE_SPQ_RING_SIZE; i++) {
		spq->ents[i].data = (uint8_t *)spq->data_mem.va + (size_t)i * ECORE_SPQ_DATA_SIZE;
		spq->ents[i].data_iova = spq->data_mem.iova + (uint64_t)i * ECORE_SPQ_DATA_SIZE;
	}
	ecore_spq_echo_init(&spq->echo, ECORE_SPQ_RING_SIZE);
	return ECORE_SUCCESS;
fail:
	ECORE_LOG(ERR, "%s: cannot allocate the SPQ: %s", p_hwfn->name, ecore_status_str(rc));
	ecore_spq_free(p_hwfn);
	return rc;
}

void
ecore_spq_setup(struct ecore_hwfn *p_hwfn)
{
	struct ecore_spq *spq = p_hwfn->p_spq;
	uint64_t base = ecore_chain_base_iova(&spq->chain);
	unsigned int i;
	uint8_t *ctx;

	ecore_osal_spin_lock(&spq->lock);
	ecore_chain_reset(&spq->chain);
	memset(spq->chain.pages[0].va, 0, ECORE_CHAIN_PAGE_SIZE);
	ecore_spq_echo_init(&spq->echo, ECORE_SPQ_RING_SIZE);
	for (i = 0; i < ECORE_SPQ_RING_SIZE; i++) {
		spq->ents[i].in_use = false;
		spq->ents[i].posted = false;
		spq->by_echo[i] = NULL;
	}
	memset(&spq->stats, 0, sizeof(spq->stats));
	ecore_osal_spin_unlock(&spq->lock);

	if (spq->cid_valid) {
		/* ours already; mark it again if ecore_cxt_mngr_setup() freed every CID */
		if (ecore_cxt_reserve_cid(p_hwfn, spq->cid) == ECORE_INVAL) {
			ECORE_LOG(ERR, "%s: SPQ CID %u has no context", p_hwfn->name, spq->cid);
			return;
		}
	} else {
		if (ecore_cxt_acquire_cid(p_hwfn, PROTOCOLID_CORE, &spq->cid) != ECORE_SUCCESS) {
			ECORE_LOG(ERR, "%s: no CORE CID for the SPQ", p_hwfn->name);
			return;
		}
		spq->cid_valid = true;
	}
	if (ecore_cxt_get_cid_info(p_hwfn, spq->cid, (void **)&ctx, NULL) != ECORE_SUCCESS) {
		ECORE_LOG(ERR, "%s: no context for SPQ CID %u", p_hwfn->name, spq->cid);
		return;
	}
	/* the firmware finds the ring in the connection's xstorm context */
	memset(ctx, 0, ECORE_CONN_CXT_SIZE);
	omni_put_le32(ctx + XSTORM_CORE_SPQ_BASE_LO, (uint32_t)base);
	omni_put_le32(ctx + XSTORM_CORE_SPQ_BASE_HI, (uint32_t)(base >> 32));
	spq->db_addr = ECORE_DB_ADDR(spq->cid);
	ecore_osal_wmb();
}

void
ecore_spq_set_block_timeout_ms(struct ecore_hwfn *p_hwfn, uint32_t ms)
{
	p_hwfn->p_spq->block_timeout_ms = ms;
}

uint32_t
ecore_spq_get_cid(struct ecore_hwfn *p_hwfn)
{
	return p_hwfn->p_spq->cid;
}

void
ecore_spq_stats(struct ecore_hwfn *p_hwfn, struct ecore_spq_stats *st)
{
	struct ecore_spq *spq = p_hwfn->p_spq;

	ecore_osal_spin_lock(&spq->lock);
	*st = spq->stats;
	st->dup_echo = spq->echo.dup;
	st->unknown_echo = spq->echo.unknown;
	ecore_osal_spin_unlock(&spq->lock);
}

enum _ecore_status_t
ecore_sp_init_request(struct ecore_hwfn *p_hwfn, struct ecore_spq_entry **pp_ent, uint8_t cmd,
		      uint8_t protocol, const struct ecore_sp_init_data *p_data)
{
	struct ecore_spq *spq = p_hwfn->p_spq;
	struct ecore_spq_entry *ent = NULL;
	unsigned int i;

	if (spq == NULL || !spq->cid_valid || p_data == NULL ||
	    (p_data->comp_mode == ECORE_SPQ_MODE_CB && p_data->p_comp_data == NULL))
		return ECORE_INVAL;
	ecore_osal_spin_lock(&spq->lock);
	for (i = 0; i < ECORE_SPQ_RING_SIZE; i++)
		if (!spq->ents[i].in_use) {
			ent = &spq->ents[i];
			ent->in_use = true;
			break;
		}
	ecore_osal_spin_unlock(&spq->lock);
	if (ent == NULL) {
		ECORE_LOG(ERR, "%s: every SPQ entry is in use", p_hwfn->name);
		return ECORE_BUSY;
	}
	memset(&ent->elem, 0, sizeof(ent->elem));
	ent->elem.hdr.cid = OMNI_LE32(p_data->cid);
	ent->elem.hdr.cmd_id = cmd;
	ent->elem.hdr.protocol_id = protocol;
	memset(ent->data, 0, ECORE_SPQ_DATA_SIZE);
	ent->has_data = false;
	ent->comp_mode = p_data->comp_mode;
	ent->comp_cb = p_data->comp_mode == ECORE_SPQ_MODE_CB ?
		*p_data->p_comp_data : (struct ecore_spq_comp_cb){ NULL, NULL };
	ent->posted = false;
	ent->abandoned = false;
	ent->done = false;
	ent->fw_return_code = 0;
	*pp_ent = ent;
	return ECORE_SUCCESS;
}

void
ecore_spq_return_entry(struct ecore_hwfn *p_hwfn, struct ecore_spq_entry *p_ent)
{
	ecore_osal_spin_lock(&p_hwfn->p_spq->lock);
	p_ent->in_use = false;
	p_ent->posted = false;
	ecore_osal_spin_unlock(&p_hwfn->p_spq->lock);
}

/* EBLOCK: run the DPC until the entry is done or the time is up. */
static enum _ecore_status_t
spq_block(struct ecore_hwfn *p_hwfn, struct ecore_spq_entry *ent, uint16_t echo)
{
	struct ecore_spq *spq = p_hwfn->p_spq;
	uint64_t start = ecore_osal_time_us(), now;
	uint64_t limit = (uint64_t)spq->block_timeout_ms * 1000;
	bool done;

	for (;;) {
		if (ecore_int_sp_pending(p_hwfn))
			ecore_int_sp_dpc(p_hwfn);
		if (__atomic_load_n(&ent->done, __ATOMIC_ACQUIRE))
			return ECORE_SUCCESS;
		now = ecore_osal_time_us();
		if (now - start >= limit)
			break;
		/* spin a few ms (the model and the firmware answer in us), then sleep */
		if (now - start >= ECORE_SPQ_BLOCK_SPIN_US)
			ecore_osal_udelay(1000);
	}
	ecore_osal_spin_lock(&spq->lock);
	done = ent->done;
	if (!done) {
		ent->abandoned = true;
		spq->stats.timeouts++;
	}
	ecore_osal_spin_unlock(&spq->lock);
	if (done)
		return ECORE_SUCCESS;
	ECORE_LOG(ERR, "%s: ramrod %u/%u echo %u stuck: no completion in %u ms", p_hwfn->name,
		  ent->elem.hdr.protocol_id, ent->elem.hdr.cmd_id, echo, spq->block_timeout_ms);
	return ECORE_TIMEOUT;
}

enum _ecore_status_t
ecore_spq_post(struct ecore_hwfn *p_hwfn, struct ecore_spq_entry *p_ent, uint8_t *fw_return_code)
{
	struct ecore_spq *spq = p_hwfn->p_spq;
	struct slow_path_element *slot;
	enum _ecore_status_t rc;
	uint16_t echo;

	ecore_osal_spin_lock(&spq->lock);
	rc = ecore_spq_echo_take(&spq->echo, &echo);
	if (rc != ECORE_SUCCESS) {
		p_ent->in_use = false;
		ecore_osal_spin_unlock(&spq->lock);
		ECORE_LOG(ERR, "%s: SPQ full (%u ramrods in flight)", p_hwfn->name,
			  ecore_spq_echo_in_flight(&spq->echo));
		return rc;
	}
	p_ent->elem.hdr.echo = OMNI_LE16(echo);
	if (p_ent->has_data) {
		p_ent->elem.data_lo = OMNI_LE32((uint32_t)p_ent->data_iova);
		p_ent->elem.data_hi = OMNI_LE32((uint32_t)(p_ent->data_iova >> 32));
	}
	slot = ecore_chain_produce(&spq->chain);
	memcpy(slot, &p_ent->elem, sizeof(*slot));
	spq->by_echo[echo & (ECORE_SPQ_RING_SIZE - 1)] = p_ent;
	p_ent->posted = true;
	spq->stats.posted++;
	/* the element and its data before the doorbell */
	ecore_osal_wmb();
	ecore_db_wr(p_hwfn, spq->db_addr, ecore_spq_db_value(spq->chain.prod_idx));
	ecore_osal_spin_unlock(&spq->lock);

	if (p_ent->comp_mode == ECORE_SPQ_MODE_CB)
		return ECORE_SUCCESS;
	rc = spq_block(p_hwfn, p_ent, echo);
	if (rc != ECORE_SUCCESS)
		return rc;	/* the entry stays with the SPQ until its late completion */
	if (fw_return_code != NULL)
		*fw_return_code = p_ent->fw_return_code;
	if (p_ent->fw_return_code != 0) {
		ECORE_LOG(ERR, "%s: ramrod %u/%u echo %u failed: fw_return_code %u", p_hwfn->name,
			  p_ent->elem.hdr.protocol_id, p_ent->elem.hdr.cmd_id, echo,
			  p_ent->fw_return_code);
		rc = ECORE_IO;
	}
	ecore_spq_return_entry(p_hwfn, p_ent);
	return rc;
}

/* One EQE that completes a ramrod. */
static void
spq_completion(struct ecore_hwfn *p_hwfn, const struct event_ring_entry *eqe)
{
	struct ecore_spq *spq = p_hwfn->p_spq;
	uint16_t echo = OMNI_LE16(eqe->echo), retired, i;
	struct ecore_spq_comp_cb cb = { NULL, NULL };
	struct ecore_spq_entry *ent;
	enum ecore_echo_result res;

	ecore_osal_spin_lock(&spq->lock);
	res = ecore_spq_echo_done(&spq->echo, echo, &retired);
	if (res != ECORE_ECHO_OK) {
		ecore_osal_spin_unlock(&spq->lock);
		ECORE_LOG(WARNING, "%s: EQE %u/%u with %s echo %u ignored", p_hwfn->name,
			  eqe->protocol_id, eqe->opcode,
			  res == ECORE_ECHO_DUP ? "a completed" : "an unknown", echo);
		return;
	}
	for (i = 0; i < retired; i++)
		ecore_chain_consume_idx(&spq->chain);
	ent = spq->by_echo[echo & (ECORE_SPQ_RING_SIZE - 1)];
	spq->by_echo[echo & (ECORE_SPQ_RING_SIZE - 1)] = NULL;
	spq->stats.completed++;
	if (eqe->fw_return_code != 0)
		spq->stats.fw_errors++;
	if (ent == NULL) {
		ecore_osal_spin_unlock(&spq->lock);
		return;
	}
	ent->fw_return_code = eqe->fw_return_code;
	ent->posted = false;
	if (ent->abandoned) {
		ent->in_use = false;
		spq->stats.late++;
		ecore_osal_spin_unlock(&spq->lock);
		ECORE_LOG(WARNING, "%s: ramrod %u/%u echo %u completed after its timeout",
			  p_hwfn->name, ent->elem.hdr.protocol_id, ent->elem.hdr.cmd_id, echo);
		return;
	}
	if (ent->comp_mode == ECORE_SPQ_MODE_EBLOCK) {
		__atomic_store_n(&ent->done, true, __ATOMIC_RELEASE);
		ecore_osal_spin_unlock(&spq->lock);
		return;
	}
	cb = ent->comp_cb;
	ent->in_use = false;
	ecore_osal_spin_unlock(&spq->lock);
	if (eqe->fw_return_code != 0)
		ECORE_LOG(ERR, "%s: ramrod %u/%u echo %u failed: fw_return_code %u", p_hwfn->name,
			  eqe->protocol_id, eqe->opcode, echo, eqe->fw_return_code);
	if (cb.function != NULL)
		cb.function(p_hwfn, cb.cookie, eqe->fw_return_code);
}

/* ---- EQ ---- */

static void
eq_dpc_cb(struct ecore_hwfn *p_hwfn, void *cookie)
{
	RTE_SET_USED(cookie);
	ecore_eq_completion(p_hwfn);
}

void
ecore_eq_free(struct ecore_hwfn *p_hwfn)
{
	struct ecore_eq *eq = p_hwfn->p_eq;

	if (eq == NULL)
		return;
	if (eq->registered)
		ecore_int_unregister_cb(p_hwfn, eq->eq_sb_index);
	ecore_chain_free(&eq->chain);
	ecore_osal_free(eq);
	p_hwfn->p_eq = NULL;
}

enum _ecore_status_t
ecore_eq_alloc(struct ecore_hwfn *p_hwfn, uint16_t num_elem)
{
	struct ecore_eq *eq;
	enum _ecore_status_t rc;

	if (p_hwfn->p_sp_sb == NULL)
		return ECORE_INVAL;	/* ecore_int_alloc() first */
	eq = ecore_osal_zalloc(sizeof(*eq));
	if (eq == NULL)
		return ECORE_NOMEM;
	p_hwfn->p_eq = eq;
	rc = ecore_chain_alloc(p_hwfn->p_dev, "eq", ECORE_CHAIN_MODE_PBL,
			       sizeof(struct event_ring_entry), num_elem, &eq->chain);
	if (rc == ECORE_SUCCESS && eq->chain.page_cnt > UINT8_MAX)
		rc = ECORE_INVAL;	/* PF_START carries the page count in a byte */
	if (rc == ECORE_SUCCESS)
		rc = ecore_int_register_cb(p_hwfn, eq_dpc_cb, eq, &eq->eq_sb_index,
					   &eq->p_fw_cons);
	if (rc != ECORE_SUCCESS) {
		ECORE_LOG(ERR, "%s: cannot allocate the EQ (%u elements): %s", p_hwfn->name,
			  num_elem, ecore_status_str(rc));
		ecore_eq_free(p_hwfn);
		return rc;
	}
	eq->registered = true;
	return ECORE_SUCCESS;
}

void
ecore_eq_setup(struct ecore_hwfn *p_hwfn)
{
	struct ecore_eq *eq = p_hwfn->p_eq;
	unsigned int i;

	ecore_chain_reset(&eq->chain);
	for (i = 0; i < eq->chain.page_cnt; i++)
		memset(eq->chain.pages[i].va, 0, ECORE_CHAIN_PAGE_SIZE);
}

enum _ecore_status_t
ecore_eq_completion(struct ecore_hwfn *p_hwfn)
{
	struct ecore_eq *eq = p_hwfn->p_eq;
	struct ecore_spq *spq = p_hwfn->p_spq;
	struct event_ring_entry eqe;
	uint16_t fw_cons;
	unsigned int n = 0;

	if (eq == NULL || spq == NULL)
		return ECORE_INVAL;
	fw_cons = OMNI_LE16(__atomic_load_n(eq->p_fw_cons, __ATOMIC_ACQUIRE));
	ecore_osal_rmb();	/* the EQEs before the index that covers them */
	while (eq->chain.cons_idx != fw_cons) {
		if (n++ >= eq->chain.capacity) {
			ECORE_LOG(ERR, "%s: EQ producer %u runs past the ring (consumer %u)",
				  p_hwfn->name, fw_cons, eq->chain.cons_idx);
			break;
		}
		memcpy(&eqe, ecore_chain_consume(&eq->chain), sizeof(eqe));
		spq->stats.eqes++;
		if (eqe.flags & EVENT_RING_ENTRY_FLAG_ASYNC) {
			spq->stats.async_eqes++;
			ECORE_LOG(NOTICE, "%s: asynchronous event %u/%u not handled", p_hwfn->name,
				  eqe.protocol_id, eqe.opcode);
		} else {
			spq_completion(p_hwfn, &eqe);
		}
		ecore_chain_produce_idx(&eq->chain);	/* the slot is free again */
	}
	/* Where the firmware reads it: the file's IRO table (the value every
	 * version we know has when no file is loaded, as in unit set-ups). */
	ecore_bar0_wr(p_hwfn, GTT_BAR0_MAP_REG_USDM_RAM +
		      (p_hwfn->p_dev->fw != NULL ?
		       ecore_iro_addr(p_hwfn->p_dev->fw, ECORE_IRO_USTORM_EQE_CONS,
				      p_hwfn->rel_pf_id, 0, 0) :
		       ECORE_USTORM_EQE_CONS_OFFSET(p_hwfn->rel_pf_id)), eq->chain.prod_idx);
	return ECORE_SUCCESS;
}

/* ---- common ramrods ---- */

static enum _ecore_status_t
sp_common_eblock(struct ecore_hwfn *p_hwfn, uint8_t cmd, struct ecore_spq_entry **pp_ent)
{
	struct ecore_sp_init_data init = {
		.cid = p_hwfn->p_spq != NULL ? p_hwfn->p_spq->cid : 0,
		.comp_mode = ECORE_SPQ_MODE_EBLOCK,
	};

	return ecore_sp_init_request(p_hwfn, pp_ent, cmd, PROTOCOLID_COMMON, &init);
}

enum _ecore_status_t
ecore_sp_pf_start(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt, uint8_t mf_mode,
		  bool allow_npar_tx_switch)
{
	struct pf_start_ramrod_data *p;
	struct ecore_spq_entry *ent;
	enum _ecore_status_t rc;
	uint64_t pbl;

	RTE_SET_USED(p_ptt);
	if (p_hwfn->p_eq == NULL || p_hwfn->p_sp_sb == NULL)
		return ECORE_INVAL;
	rc = sp_common_eblock(p_hwfn, COMMON_RAMROD_PF_START, &ent);
	if (rc != ECORE_SUCCESS)
		return rc;
	p = ent->data;
	pbl = p_hwfn->p_eq->chain.pbl.iova;
	p->event_ring_pbl_lo = OMNI_LE32((uint32_t)pbl);
	p->event_ring_pbl_hi = OMNI_LE32((uint32_t)(pbl >> 32));
	p->event_ring_sb_id = OMNI_LE16(p_hwfn->p_sp_sb->sb_info.igu_sb_id);
	p->event_ring_num_pages = (uint8_t)p_hwfn->p_eq->chain.page_cnt;
	p->event_ring_sb_index = p_hwfn->p_eq->eq_sb_index;
	p->path_id = p_hwfn->path_id;
	p->personality = PERSONALITY_ETH;
	p->mf_mode = mf_mode;
	p->allow_npar_tx_switching = allow_npar_tx_switch;
	p->hsi_fp_ver.major_ver_arr[ETH_VER_KEY] = ETH_HSI_VER_MAJOR;
	p->hsi_fp_ver.minor_ver_arr[ETH_VER_KEY] = ETH_HSI_VER_MINOR;
	ent->has_data = true;
	rc = ecore_spq_post(p_hwfn, ent, NULL);
	if (rc != ECORE_SUCCESS)
		ECORE_LOG(ERR, "%s: PF_START: %s", p_hwfn->name, ecore_status_str(rc));
	return rc;
}

enum _ecore_status_t
ecore_sp_pf_stop(struct ecore_hwfn *p_hwfn)
{
	struct ecore_spq_entry *ent;
	enum _ecore_status_t rc;

	rc = sp_common_eblock(p_hwfn, COMMON_RAMROD_PF_STOP, &ent);
	if (rc != ECORE_SUCCESS)
		return rc;
	rc = ecore_spq_post(p_hwfn, ent, NULL);
	if (rc != ECORE_SUCCESS)
		ECORE_LOG(ERR, "%s: PF_STOP: %s", p_hwfn->name, ecore_status_str(rc));
	return rc;
}

enum _ecore_status_t
ecore_sp_heartbeat_ramrod(struct ecore_hwfn *p_hwfn)
{
	struct ecore_spq_entry *ent;
	enum _ecore_status_t rc;

	rc = sp_common_eblock(p_hwfn, COMMON_RAMROD_EMPTY, &ent);
	if (rc != ECORE_SUCCESS)
		return rc;
	return ecore_spq_post(p_hwfn, ent, NULL);
}
