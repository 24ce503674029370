/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * The DMAE client: one command channel per PF (its relative PF id), a
 * completion word and a bounce buffer in DMA memory. A command is written
 * to the channel's command memory through a PTT and started by its GO
 * register; the engine writes the completion value (with bit 31 on an
 * error) to the completion word, which is polled with a bound. One lock
 * covers the channel, the completion word and the bounce buffer.
 *
 * Host buffers of host2grc/grc2host hold dwords in CPU order; the device
 * sees them little-endian (the bounce buffer is LE).
 */

#include "ecore_hw.h"
#include "ecore_reg.h"

/* The bounce buffer: one command's worth. */
#define DMAE_BOUNCE_DW		DMAE_MAX_RW_DW
/* Completion bound: the engine moves 32 KiB in microseconds; 100 ms is lost. */
#define DMAE_TIMEOUT_US		100000
#define DMAE_POLL_US		2
/* The sanity test's size (dwords) and pattern base. */
#define DMAE_SANITY_DW		1024
#define DMAE_SANITY_PATTERN	0x5a5a0000u

struct ecore_dmae_info {
	ecore_osal_spinlock_t lock;
	uint8_t channel;		/* command index, 0..31 */
	struct ecore_dma_mem comp;	/* completion word */
	struct ecore_dma_mem bounce;	/* DMAE_BOUNCE_DW dwords */
};

enum dmae_end { DMAE_HOST, DMAE_GRC };

enum _ecore_status_t
ecore_dmae_info_alloc(struct ecore_hwfn *p_hwfn)
{
	struct ecore_dmae_info *d;
	const char *dev = p_hwfn->p_dev->name;

	if (p_hwfn->p_dmae != NULL)
		return ECORE_EXISTS;
	d = ecore_osal_zalloc(sizeof(*d));
	if (d == NULL)
		return ECORE_NOMEM;
	ecore_osal_spin_init(&d->lock);
	d->channel = p_hwfn->rel_pf_id % DMAE_NUM_CHANNELS;
	if (ecore_osal_dma_alloc(&d->comp, dev, "dmaec", p_hwfn->my_id, sizeof(uint64_t), 8) != 0)
		goto fail;
	if (ecore_osal_dma_alloc(&d->bounce, dev, "dmaeb", p_hwfn->my_id, DMAE_BOUNCE_DW * 4,
				 64) != 0)
		goto fail;
	p_hwfn->p_dmae = d;
	return ECORE_SUCCESS;
fail:
	ecore_osal_dma_free(&d->comp);
	ecore_osal_free(d);
	ECORE_LOG(ERR, "%s: no DMA memory for the DMAE client", p_hwfn->name);
	return ECORE_NOMEM;
}

void
ecore_dmae_info_free(struct ecore_hwfn *p_hwfn)
{
	struct ecore_dmae_info *d = p_hwfn->p_dmae;

	if (d == NULL)
		return;
	ecore_osal_dma_free(&d->bounce);
	ecore_osal_dma_free(&d->comp);
	ecore_osal_free(d);
	p_hwfn->p_dmae = NULL;
}

static uint32_t
dmae_opcode(struct ecore_hwfn *p_hwfn, enum dmae_end src, enum dmae_end dst)
{
	uint32_t op = 0;

	if (src == DMAE_GRC)
		op |= DMAE_CMD_SRC_GRC;
	op |= (uint32_t)(dst == DMAE_GRC ? DMAE_CMD_DST_GRC : DMAE_CMD_DST_PCIE) <<
		DMAE_CMD_DST_SHIFT;
	op |= DMAE_CMD_COMP_WORD_EN | DMAE_CMD_SRC_ADDR_RESET | DMAE_CMD_DST_ADDR_RESET;
	op |= (uint32_t)DMAE_CMD_ENDIANITY_LE << DMAE_CMD_ENDIANITY_SHIFT;
	op |= (uint32_t)DMAE_CMD_ERR_HANDLING_COMP_WITH_ERR << DMAE_CMD_ERR_HANDLING_SHIFT;
	op |= (uint32_t)(p_hwfn->port_id & 0x3) << DMAE_CMD_PORT_SHIFT;
	op |= (uint32_t)(p_hwfn->rel_pf_id & DMAE_CMD_PF_MASK) << DMAE_CMD_SRC_PF_SHIFT;
	op |= (uint32_t)(p_hwfn->rel_pf_id & DMAE_CMD_PF_MASK) << DMAE_CMD_DST_PF_SHIFT;
	return op;
}

/* One command of @p len_dw dwords (lock held). Host addresses in bytes,
 * GRC addresses in bytes here (the command takes them in dwords). */
static enum _ecore_status_t
dmae_post(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt, enum dmae_end src_t,
	  uint64_t src, enum dmae_end dst_t, uint64_t dst, uint32_t len_dw)
{
	struct ecore_dmae_info *d = p_hwfn->p_dmae;
	volatile uint32_t *comp = d->comp.va;
	uint32_t cmd[DMAE_CMD_SIZE_DW] = { 0 };
	uint32_t base = DMAE_REG_CMD_MEM + d->channel * DMAE_CMD_SIZE_DW * 4;
	uint64_t deadline;
	uint64_t s = src_t == DMAE_GRC ? src >> 2 : src;	/* GRC: dwords */
	uint64_t t = dst_t == DMAE_GRC ? dst >> 2 : dst;
	uint32_t word, i;

	cmd[DMAE_CMD_OPCODE_DW] = dmae_opcode(p_hwfn, src_t, dst_t);
	cmd[DMAE_CMD_SRC_LO_DW] = (uint32_t)s;
	cmd[DMAE_CMD_SRC_HI_DW] = (uint32_t)(s >> 32);
	cmd[DMAE_CMD_DST_LO_DW] = (uint32_t)t;
	cmd[DMAE_CMD_DST_HI_DW] = (uint32_t)(t >> 32);
	cmd[DMAE_CMD_LEN_DW] = (len_dw & 0xffff) | 0xffffu << 16;	/* no VFs */
	cmd[DMAE_CMD_COMP_LO_DW] = (uint32_t)d->comp.iova;
	cmd[DMAE_CMD_COMP_HI_DW] = (uint32_t)(d->comp.iova >> 32);
	cmd[DMAE_CMD_COMP_VAL_DW] = DMAE_COMPLETION_VAL;

	*comp = 0;
	ecore_osal_wmb();
	for (i = 0; i < DMAE_CMD_SIZE_DW; i++)
		ecore_wr(p_hwfn, p_ptt, base + 4 * i, cmd[i]);
	ecore_wr(p_hwfn, p_ptt, DMAE_REG_GO_C0 + 4 * d->channel, DMAE_GO_VALUE);

	deadline = ecore_osal_time_us() + DMAE_TIMEOUT_US;
	for (;;) {
		ecore_osal_rmb();
		word = OMNI_LE32(*comp);
		if (word != 0 || ecore_osal_time_us() >= deadline)
			break;
		ecore_osal_udelay(DMAE_POLL_US);
	}
	if (word == DMAE_COMPLETION_VAL)
		return ECORE_SUCCESS;
	if (word == 0) {
		ECORE_LOG(ERR, "%s: DMAE command (0x%" PRIx64 " -> 0x%" PRIx64 ", %u dwords) not completed in %u ms",
			  p_hwfn->name, src, dst, len_dw, DMAE_TIMEOUT_US / 1000);
		return ECORE_TIMEOUT;
	}
	ECORE_LOG(ERR, "%s: DMAE command (0x%" PRIx64 " -> 0x%" PRIx64 ", %u dwords) completed with 0x%08x%s",
		  p_hwfn->name, src, dst, len_dw, word,
		  word & DMAE_COMPLETION_ERROR_BIT ? " (error)" : " (not the completion value)");
	return ECORE_IO;
}

static enum _ecore_status_t
dmae_ready(struct ecore_hwfn *p_hwfn, uint32_t grc_addr)
{
	if (p_hwfn->p_dmae == NULL) {
		ECORE_LOG(ERR, "%s: DMAE used before ecore_dmae_info_alloc()", p_hwfn->name);
		return ECORE_INVAL;
	}
	if (grc_addr % 4) {
		ECORE_LOG(ERR, "%s: DMAE to unaligned GRC address 0x%x", p_hwfn->name, grc_addr);
		return ECORE_INVAL;
	}
	return ECORE_SUCCESS;
}

enum _ecore_status_t
ecore_dmae_host2grc(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt, const void *src,
		    uint32_t grc_addr, uint32_t size_dw)
{
	struct ecore_dmae_info *d = p_hwfn->p_dmae;
	enum _ecore_status_t rc;
	const uint32_t *s = src;
	uint32_t done, n, i;

	rc = dmae_ready(p_hwfn, grc_addr);
	if (rc != ECORE_SUCCESS)
		return rc;
	ecore_osal_spin_lock(&d->lock);
	for (done = 0; done < size_dw && rc == ECORE_SUCCESS; done += n) {
		n = RTE_MIN(size_dw - done, (uint32_t)DMAE_BOUNCE_DW);
		for (i = 0; i < n; i++)
			omni_put_le32((uint8_t *)d->bounce.va + 4 * i, s[done + i]);
		rc = dmae_post(p_hwfn, p_ptt, DMAE_HOST, d->bounce.iova, DMAE_GRC,
			       grc_addr + 4ull * done, n);
	}
	ecore_osal_spin_unlock(&d->lock);
	return rc;
}

enum _ecore_status_t
ecore_dmae_grc_fill(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt, uint32_t grc_addr,
		    uint32_t value, uint32_t size_dw)
{
	struct ecore_dmae_info *d = p_hwfn->p_dmae;
	enum _ecore_status_t rc;
	uint32_t done, n, i;

	rc = dmae_ready(p_hwfn, grc_addr);
	if (rc != ECORE_SUCCESS)
		return rc;
	ecore_osal_spin_lock(&d->lock);
	/* One bounce buffer of the value, copied again for each chunk. */
	n = RTE_MIN(size_dw, (uint32_t)DMAE_BOUNCE_DW);
	for (i = 0; i < n; i++)
		omni_put_le32((uint8_t *)d->bounce.va + 4 * i, value);
	for (done = 0; done < size_dw && rc == ECORE_SUCCESS; done += n) {
		n = RTE_MIN(size_dw - done, (uint32_t)DMAE_BOUNCE_DW);
		rc = dmae_post(p_hwfn, p_ptt, DMAE_HOST, d->bounce.iova, DMAE_GRC,
			       grc_addr + 4ull * done, n);
	}
	ecore_osal_spin_unlock(&d->lock);
	return rc;
}

enum _ecore_status_t
ecore_dmae_grc2host(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt, uint32_t grc_addr,
		    void *dst, uint32_t size_dw)
{
	struct ecore_dmae_info *d = p_hwfn->p_dmae;
	enum _ecore_status_t rc;
	uint32_t *t = dst;
	uint32_t done, n, i;

	rc = dmae_ready(p_hwfn, grc_addr);
	if (rc != ECORE_SUCCESS)
		return rc;
	ecore_osal_spin_lock(&d->lock);
	for (done = 0; done < size_dw; done += n) {
		n = RTE_MIN(size_dw - done, (uint32_t)DMAE_BOUNCE_DW);
		rc = dmae_post(p_hwfn, p_ptt, DMAE_GRC, grc_addr + 4ull * done, DMAE_HOST,
			       d->bounce.iova, n);
		if (rc != ECORE_SUCCESS)
			break;
		ecore_osal_rmb();
		for (i = 0; i < n; i++)
			t[done + i] = omni_get_le32((const uint8_t *)d->bounce.va + 4 * i);
	}
	ecore_osal_spin_unlock(&d->lock);
	return rc;
}

enum _ecore_status_t
ecore_dmae_host2host(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt, uint64_t src_iova,
		     uint64_t dst_iova, uint32_t size_dw)
{
	struct ecore_dmae_info *d = p_hwfn->p_dmae;
	enum _ecore_status_t rc;
	uint32_t done, n;

	rc = dmae_ready(p_hwfn, 0);
	if (rc != ECORE_SUCCESS)
		return rc;
	ecore_osal_spin_lock(&d->lock);
	for (done = 0; done < size_dw && rc == ECORE_SUCCESS; done += n) {
		n = RTE_MIN(size_dw - done, (uint32_t)DMAE_MAX_RW_DW);
		rc = dmae_post(p_hwfn, p_ptt, DMAE_HOST, src_iova + 4ull * done, DMAE_HOST,
			       dst_iova + 4ull * done, n);
	}
	ecore_osal_spin_unlock(&d->lock);
	return rc;
}

enum _ecore_status_t
ecore_dmae_sanity(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt, const char *phase)
{
	struct ecore_dma_mem mem;
	enum _ecore_status_t rc;
	uint8_t *src, *dst;
	uint32_t i, got, want;

	if (ecore_osal_dma_alloc(&mem, p_hwfn->p_dev->name, "dmaes", p_hwfn->my_id,
				 2 * DMAE_SANITY_DW * 4, 64) != 0)
		return ECORE_NOMEM;
	src = mem.va;
	dst = src + DMAE_SANITY_DW * 4;
	for (i = 0; i < DMAE_SANITY_DW; i++) {
		omni_put_le32(src + 4 * i, DMAE_SANITY_PATTERN + i);
		omni_put_le32(dst + 4 * i, ~(DMAE_SANITY_PATTERN + i));
	}
	rc = ecore_dmae_host2host(p_hwfn, p_ptt, mem.iova, mem.iova + DMAE_SANITY_DW * 4,
				  DMAE_SANITY_DW);
	if (rc == ECORE_SUCCESS) {
		ecore_osal_rmb();
		for (i = 0; i < DMAE_SANITY_DW; i++) {
			got = omni_get_le32(dst + 4 * i);
			want = DMAE_SANITY_PATTERN + i;
			if (got != want) {
				ECORE_LOG(ERR, "%s: DMAE sanity (%s): dword %u is 0x%08x, expected 0x%08x",
					  p_hwfn->name, phase, i, got, want);
				rc = ECORE_IO;
				break;
			}
		}
	} else {
		ECORE_LOG(ERR, "%s: DMAE sanity (%s) failed: %s", p_hwfn->name, phase,
			  ecore_status_str(rc));
	}
	ecore_osal_dma_free(&mem);
	return rc;
}
