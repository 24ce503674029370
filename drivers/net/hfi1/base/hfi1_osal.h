/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _HFI1_OSAL_H_
#define _HFI1_OSAL_H_

/**
 * @file
 * The base layer's environment, named once: base/ (and the model's logging)
 * reach the outside world only through what this header names, so the
 * register and ring code carries no DPDK calls of its own and another base
 * layer (a second device family) follows the same seam.
 *
 * - log:        HFI1_OSAL_LOG(level, fmt, ...): the component's one log
 *               type, pmd.net.hfi1 (hfi1_logtype, registered by the PMD)
 * - MMIO:       hfi1_osal_read64(), hfi1_osal_write64() (ordered after
 *               earlier stores to DMA memory)
 * - DMA memory: struct hfi1_dma_mem, hfi1_osal_dma_alloc(),
 *               hfi1_osal_dma_free(), hfi1_osal_virt2iova()
 * - time:       hfi1_osal_cycles(), hfi1_osal_cycles_hz(), hfi1_osal_usleep()
 * - ordering:   hfi1_osal_load64_acquire(), hfi1_osal_store64_relaxed()
 * - byte order: hfi1_osal_cpu_to_le64(), hfi1_osal_le64_to_cpu()
 * - arithmetic: HFI1_OSAL_ALIGN_CEIL, HFI1_OSAL_PTR_ADD,
 *               HFI1_OSAL_CACHE_LINE, hfi1_osal_is_pow2(), hfi1_osal_log2()
 *
 * The PMD glue implements the seam on DPDK: the small ones below are
 * inline onto rte_* (they run per burst); DMA memory (EAL memzones) is in
 * hfi1_osal.c; hfi1_ethdev.c registers the log type.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_io.h>
#include <rte_log.h>
#include <rte_memory.h>

/* ---- log ---- */

/** The one log type of net_hfi1 (PMD, base layer, model): pmd.net.hfi1. */
extern int hfi1_logtype;

/** Log at @p level (ERR, WARNING, INFO, DEBUG...), prefixed with the function. */
#define HFI1_OSAL_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, hfi1_logtype, "%s(): " fmt "\n", \
		__func__, ## __VA_ARGS__)

/* ---- arithmetic ---- */

#define HFI1_OSAL_CACHE_LINE RTE_CACHE_LINE_SIZE
#define HFI1_OSAL_ALIGN_CEIL(v, a) RTE_ALIGN_CEIL(v, a)
#define HFI1_OSAL_PTR_ADD(p, n) RTE_PTR_ADD(p, n)

static inline bool
hfi1_osal_is_pow2(uint32_t v)
{
	return rte_is_power_of_2(v);
}

static inline uint32_t
hfi1_osal_log2(uint32_t v)
{
	return rte_log2_u32(v);
}

/* ---- byte order ---- */

static inline uint64_t
hfi1_osal_cpu_to_le64(uint64_t v)
{
	return rte_cpu_to_le_64(v);
}

static inline uint64_t
hfi1_osal_le64_to_cpu(uint64_t v)
{
	return rte_le_to_cpu_64(v);
}

/* ---- ordering (memory the device writes) ---- */

static inline uint64_t
hfi1_osal_load64_acquire(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void
hfi1_osal_store64_relaxed(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

/* ---- MMIO ---- */

static inline uint64_t
hfi1_osal_read64(const volatile void *addr)
{
	return rte_read64(addr);
}

/** Write a register, ordered after earlier stores (descriptors, heads). */
static inline void
hfi1_osal_write64(uint64_t val, volatile void *addr)
{
	rte_write64(val, addr);
}

/* ---- time ---- */

static inline uint64_t
hfi1_osal_cycles(void)
{
	return rte_get_timer_cycles();
}

static inline uint64_t
hfi1_osal_cycles_hz(void)
{
	return rte_get_timer_hz();
}

/** Sleep (yield the CPU) for @p us microseconds. */
static inline void
hfi1_osal_usleep(unsigned int us)
{
	rte_delay_us_sleep(us);
}

/* ---- DMA memory ---- */

/** A device address. */
typedef rte_iova_t hfi1_iova_t;
/** No device address (hfi1_osal_virt2iova()). */
#define HFI1_OSAL_BAD_IOVA RTE_BAD_IOVA

/** A block of DMA memory: where the CPU and the device see it. */
struct hfi1_dma_mem {
	void *va;			/**< NULL when none */
	hfi1_iova_t iova;		/**< of va (contiguous: of the whole block) */
	const void *priv;		/**< the environment's handle (a memzone) */
};

/**
 * Reserve zeroed DMA memory named "<dev>_<what><idx>", IOVA-contiguous as a
 * whole if @p contig (else only within each page: for many small buffers,
 * which then need not find physically contiguous hugepages).
 *
 * @return
 *   0, or -ENAMETOOLONG / -ENOMEM (logged).
 */
int hfi1_osal_dma_alloc(struct hfi1_dma_mem *m, const char *dev, const char *what,
			unsigned int idx, size_t len, unsigned int align, int socket,
			bool contig);

/** Free DMA memory (none is fine); @p m is emptied. */
void hfi1_osal_dma_free(struct hfi1_dma_mem *m);

/** The device address of @p va, or HFI1_OSAL_BAD_IOVA. */
static inline hfi1_iova_t
hfi1_osal_virt2iova(const void *va)
{
	return rte_mem_virt2iova(va);
}

#endif /* _HFI1_OSAL_H_ */
