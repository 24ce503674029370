/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _HFI1_HW_H_
#define _HFI1_HW_H_

/**
 * @file
 * net_hfi1 base layer: the HFI's datapath interfaces over one ops table.
 *
 * Everything here talks to the device only through struct hfi1_hw_ops
 * (CSR reads and writes) and through DMA memory the device reads and
 * writes. On silicon the ops map BAR0; on the model they call the model.
 * The code is the same either way. The environment (log, DMA memory,
 * time, byte order) is reached only through hfi1_osal.h.
 *
 * - SDMA: a ring of 16-byte descriptors per engine, generation bits from
 *   the pass number, the head written back to host memory.
 * - Receive contexts: a header queue (RHQ) of RHF-terminated entries whose
 *   progress is tracked by RcvSeq, eager buffers posted in the RcvArray.
 * - RSM: receive-side-mapping rules that steer packets to contexts.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "hfi1_osal.h"
#include "hfi1_regs.h"

struct hfi1_hw;

/**
 * Device access: what silicon implements (BAR0). Per burst at most, never
 * per packet. A model that must be run from the PMD's polls says so at its
 * attach (hfi1_model_attach()), not here.
 */
struct hfi1_hw_ops {
	/** Read a 64-bit CSR at a BAR0 offset. */
	uint64_t (*csr_read)(struct hfi1_hw *hw, uint32_t off);
	/** Write a 64-bit CSR; ordered after earlier stores to DMA memory. */
	void (*csr_write)(struct hfi1_hw *hw, uint32_t off, uint64_t val);
};

/** One HFI as the base layer sees it. */
struct hfi1_hw {
	const struct hfi1_hw_ops *ops;
	void *dev;			/**< BAR0 mapping, or the model */
	uint32_t nb_rcv_ctxts;		/**< receive contexts */
	uint32_t nb_sdma_engines;	/**< SDMA engines */
	uint32_t rcv_array_cnt;		/**< RcvArray entries */
	int socket_id;
	char name[32];			/**< for DMA memory names and logs */
};

static inline uint64_t
hfi1_csr_read(struct hfi1_hw *hw, uint32_t off)
{
	return hw->ops->csr_read(hw, off);
}

static inline void
hfi1_csr_write(struct hfi1_hw *hw, uint32_t off, uint64_t val)
{
	hw->ops->csr_write(hw, off, val);
}

/** Ops of a mapped BAR0 (silicon). */
extern const struct hfi1_hw_ops hfi1_bar_ops;

/**
 * Reserve zeroed DMA memory for the device, named after it
 * (hfi1_osal_dma_alloc() on its socket).
 *
 * @return
 *   0, or -ENOMEM.
 */
static inline int
hfi1_dma_alloc(struct hfi1_hw *hw, struct hfi1_dma_mem *m, const char *what,
		unsigned int idx, size_t len, unsigned int align, bool contig)
{
	return hfi1_osal_dma_alloc(m, hw->name, what, idx, len, align, hw->socket_id,
				   contig) == 0 ? 0 : -ENOMEM;
}

/* ------------------------------------------------------------------ */
/* SDMA                                                               */

/** An SDMA engine's descriptor ring, owned by one TX queue. */
struct hfi1_sdma_ring {
	struct hfi1_hw *hw;
	unsigned int engine;
	uint64_t *descq;		/**< cnt descriptors of 2 LE qwords */
	volatile uint64_t *head_wb;	/**< head the engine writes back */
	uint64_t *pbc;			/**< one PBC slot per descriptor */
	hfi1_iova_t descq_iova;
	hfi1_iova_t head_wb_iova;
	hfi1_iova_t pbc_iova;
	uint32_t cnt;			/**< descriptors, power of 2, >= 64 */
	uint32_t mask;
	uint32_t shift;			/**< log2(cnt) */
	uint32_t tail;			/**< descriptors written (running) */
	uint32_t head;			/**< descriptors completed (running) */
	struct hfi1_dma_mem mem;	/**< descriptors, PBCs, head */
};

/** Smallest and largest SDMA ring (LEN_GEN counts in units of 64). */
#define HFI1_SDMA_RING_MIN 64
#define HFI1_SDMA_RING_MAX 4096

int hfi1_sdma_ring_init(struct hfi1_sdma_ring *r, struct hfi1_hw *hw,
		unsigned int engine, uint32_t cnt);
void hfi1_sdma_ring_free(struct hfi1_sdma_ring *r);
/** Program and enable the engine; the ring restarts empty at generation 0. */
int hfi1_sdma_start(struct hfi1_sdma_ring *r);
/**
 * Halt the engine and wait until the hardware says it is halted.
 *
 * @return
 *   0, or -ETIMEDOUT after timeout_ms.
 */
int hfi1_sdma_halt(struct hfi1_sdma_ring *r, unsigned int timeout_ms);
/** True if the engine stopped itself on an error; *err gets why. */
bool hfi1_sdma_halted(struct hfi1_sdma_ring *r, uint64_t *err);

/**
 * Read the written-back head and turn it into a running count.
 *
 * @return
 *   The running head if it lies between r->head and r->tail, else
 *   UINT64_MAX (a bad value from the device, to be counted and ignored).
 */
static inline uint64_t
hfi1_sdma_hw_head(const struct hfi1_sdma_ring *r)
{
	uint64_t hw = hfi1_osal_le64_to_cpu(*r->head_wb);
	uint32_t pending = r->tail - r->head;
	uint32_t done;

	if (hw >= r->cnt)
		return UINT64_MAX;
	done = ((uint32_t)hw - r->head) & r->mask;
	if (done > pending)
		return UINT64_MAX;
	return r->head + done;
}

/** Descriptors free for new packets (one slot stays empty). */
static inline uint32_t
hfi1_sdma_free_descs(const struct hfi1_sdma_ring *r)
{
	return r->cnt - 1 - (r->tail - r->head);
}

/** Write the descriptor at running position pos. */
static inline void
hfi1_sdma_desc_write(struct hfi1_sdma_ring *r, uint32_t pos, uint64_t addr,
		uint32_t len, uint64_t flags0, uint64_t flags1)
{
	uint64_t *d = &r->descq[2 * (pos & r->mask)];
	uint64_t gen = (pos >> r->shift) & HFI1_SDMA_DESC1_GEN_MASK;

	d[0] = hfi1_osal_cpu_to_le64((addr & HFI1_SDMA_DESC0_ADDR_MASK) |
			((uint64_t)len << HFI1_SDMA_DESC0_LEN_SHIFT) | flags0);
	d[1] = hfi1_osal_cpu_to_le64(flags1 | gen << HFI1_SDMA_DESC1_GEN_SHIFT);
}

/** Hand descriptors up to r->tail to the engine. */
static inline void
hfi1_sdma_kick(struct hfi1_sdma_ring *r)
{
	hfi1_csr_write(r->hw, HFI1_SDMA(HFI1_SDMA_TAIL, r->engine),
			r->tail & r->mask);
}

/** PBC of a bypass (16B) packet of pkt_len bytes, without the PBC. */
static inline uint64_t
hfi1_pbc_bypass(uint32_t pkt_len, unsigned int vl)
{
	return (uint64_t)(pkt_len / 4 + 2) |
		((uint64_t)(vl & HFI1_PBC_VL_MASK) << HFI1_PBC_VL_SHIFT) |
		HFI1_PBC_INSERT_BYPASS_ICRC | HFI1_PBC_CREDIT_RETURN |
		(HFI1_PBC_INSERT_HCRC_NONE << HFI1_PBC_INSERT_HCRC_SHIFT) |
		HFI1_PBC_PACKET_BYPASS;
}

/* ------------------------------------------------------------------ */
/* Receive contexts                                                   */

/** Where the eager buffer of a bypass packet starts (facts section 4). */
enum hfi1_egr_layout {
	HFI1_EGR_LAYOUT_AUTO = 0,	/**< not known yet: detect */
	HFI1_EGR_LAYOUT_FULL,		/**< eager holds the whole packet */
	HFI1_EGR_LAYOUT_SPLIT,		/**< eager holds bytes after the RHQ copy */
};

/** Bytes of each bypass packet copied to the RHQ (RcvBypass.HdrSize). */
#define HFI1_BYPASS_HDR_DWS 4
#define HFI1_BYPASS_HDR_LEN (4 * HFI1_BYPASS_HDR_DWS)

/** A receive context, owned by one RX queue. */
struct hfi1_rcv_ctxt {
	struct hfi1_hw *hw;
	unsigned int ctxt;
	uint8_t *rhq;			/**< rhq_cnt entries of ent_dws DWs */
	uint8_t *egr;			/**< egr_cnt buffers of egr_size bytes */
	hfi1_iova_t rhq_iova;
	hfi1_iova_t tail_iova;		/**< dummy DMA'd tail (unused) */
	uint32_t rhq_cnt;		/**< entries, multiple of 32 */
	uint32_t ent_dws;		/**< entry size in DWs (16 or 32) */
	uint32_t egr_cnt;		/**< eager buffers, multiple of 8 */
	uint32_t egr_size;		/**< bytes per eager buffer */
	uint32_t egr_base;		/**< first RcvArray index */
	uint32_t head;			/**< next RHQ entry to look at */
	uint32_t seq;			/**< RcvSeq expected there (1..13) */
	struct hfi1_dma_mem mem;	/**< RHQ and tail */
	struct hfi1_dma_mem egr_mem;	/**< eager buffers */
};

/** RHQ entries: hfi1's limits. */
#define HFI1_RHQ_MIN 64
#define HFI1_RHQ_MAX 16352

int hfi1_rcv_ctxt_init(struct hfi1_rcv_ctxt *c, struct hfi1_hw *hw,
		unsigned int ctxt, uint32_t rhq_cnt, uint32_t egr_cnt,
		uint32_t egr_size);
void hfi1_rcv_ctxt_free(struct hfi1_rcv_ctxt *c);
/** Post the eager buffers, program and enable the context. */
int hfi1_rcv_ctxt_enable(struct hfi1_rcv_ctxt *c);
/** Disable the context and invalidate its RcvArray entries. */
void hfi1_rcv_ctxt_disable(struct hfi1_rcv_ctxt *c);
/**
 * Port-wide set-up: send enable; receive with bypass packets, RSM when
 * asked, unclaimed bypass packets to default_ctxt.
 */
void hfi1_port_enable(struct hfi1_hw *hw, unsigned int default_ctxt, bool rsm);
/** Stop sending and receiving on the port. */
void hfi1_port_disable(struct hfi1_hw *hw);

static inline uint64_t
hfi1_rhf_get(const struct hfi1_rcv_ctxt *c, uint32_t entry)
{
	const uint64_t *rhf = (const uint64_t *)(c->rhq +
			(size_t)entry * c->ent_dws * 4 + (c->ent_dws - 2) * 4);

	return hfi1_osal_le64_to_cpu(hfi1_osal_load64_acquire(rhf));
}

/**
 * Zero the RHF of an entry software has read. RcvSeq runs 1..13, so in an
 * RHQ whose size is a multiple of 13 (416 entries, ...) an entry one lap
 * old carries the very RcvSeq expected there next; zero never matches.
 */
static inline void
hfi1_rhf_clear(struct hfi1_rcv_ctxt *c, uint32_t entry)
{
	uint64_t *rhf = (uint64_t *)(c->rhq + (size_t)entry * c->ent_dws * 4 +
			(c->ent_dws - 2) * 4);

	hfi1_osal_store64_relaxed(rhf, 0);
}

static inline uint32_t
hfi1_rhf_seq(uint64_t rhf)
{
	return (rhf >> HFI1_RHF_SEQ_SHIFT) & HFI1_RHF_SEQ_MASK;
}

static inline uint32_t
hfi1_rhf_pkt_bytes(uint64_t rhf)
{
	return (uint32_t)(rhf & HFI1_RHF_PKT_LEN_MASK) * 4;
}

static inline uint32_t
hfi1_rhf_rcv_type(uint64_t rhf)
{
	return (rhf >> HFI1_RHF_RCV_TYPE_SHIFT) & HFI1_RHF_RCV_TYPE_MASK;
}

static inline uint32_t
hfi1_rhf_egr_index(uint64_t rhf)
{
	return (rhf >> HFI1_RHF_EGR_INDEX_SHIFT) & HFI1_RHF_EGR_INDEX_MASK;
}

static inline uint32_t
hfi1_rhf_egr_offset(uint64_t rhf)
{
	return ((rhf >> HFI1_RHF_EGR_OFFSET_SHIFT) & HFI1_RHF_EGR_OFFSET_MASK) *
		64;
}

static inline uint32_t
hfi1_rhf_hdrq_offset(uint64_t rhf)
{
	return ((rhf >> HFI1_RHF_HDRQ_OFFSET_SHIFT) & HFI1_RHF_HDRQ_OFFSET_MASK) *
		4;
}

/** Next RcvSeq after seq (1..13, then 1 again). */
static inline uint32_t
hfi1_seq_next(uint32_t seq)
{
	return seq >= HFI1_RHF_SEQ_MAX ? 1 : seq + 1;
}

/** Tell the device how far software has read (RHQ head in DWs, eager). */
void hfi1_rcv_ctxt_update_heads(struct hfi1_rcv_ctxt *c, uint32_t egr_index);

/**
 * Decide the bypass eager layout from one packet: its RHQ header copy
 * against the first bytes of its eager data.
 */
static inline enum hfi1_egr_layout
hfi1_egr_layout_detect(const uint8_t *rhq_hdr, const uint8_t *egr)
{
	return memcmp(rhq_hdr, egr, HFI1_BYPASS_HDR_LEN) == 0 ?
		HFI1_EGR_LAYOUT_FULL : HFI1_EGR_LAYOUT_SPLIT;
}

/* ------------------------------------------------------------------ */
/* RSM                                                                */

/** One RSM rule in the register facts' terms. Bit offsets into the packet
 * as little-endian quadwords (bit 64 = byte 8 bit 0). */
struct hfi1_rsm_rule {
	uint8_t pkt_type;	/**< RcvType to match (4 = bypass) */
	uint8_t map_offset;	/**< first map-table entry */
	uint8_t field1_off, mask1, value1;
	uint8_t field2_off, mask2, value2;
	uint8_t index1_off, index1_width;
	uint8_t index2_off, index2_width;
};

/** Program rule slot (0..3) and enable it. */
void hfi1_rsm_rule_write(struct hfi1_hw *hw, unsigned int slot,
		const struct hfi1_rsm_rule *rule);
/** Disable rule slot. */
void hfi1_rsm_rule_clear(struct hfi1_hw *hw, unsigned int slot);
/** Fill map entries first..first+n-1 with ctxts, round robin over nb. */
void hfi1_rsm_map_fill(struct hfi1_hw *hw, unsigned int first, unsigned int n,
		const uint8_t *ctxts, unsigned int nb);

/** Rule steering VNIC (L4 0x78) by vesw id and entropy (facts section 4). */
void hfi1_rsm_rule_vnic(struct hfi1_rsm_rule *rule, uint8_t map_offset);
/** Rule steering management (L4 0x08) packets to one map entry. */
void hfi1_rsm_rule_mgmt(struct hfi1_rsm_rule *rule, uint8_t map_offset);

#endif /* _HFI1_HW_H_ */
