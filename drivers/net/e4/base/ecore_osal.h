/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _ECORE_OSAL_H_
#define _ECORE_OSAL_H_

/**
 * @file
 * The ecore layer's environment, named once (the guide's "OS abstraction
 * layer"): base/ and model/ reach the outside world only through what this
 * header names, so the base layer carries no DPDK calls of its own.
 *
 * - log:        ECORE_LOG(level, fmt, ...): the component's one log type,
 *               pmd.net.e4 (e4_logtype, registered in e4_osal.c)
 * - heap:       ecore_osal_zalloc(), ecore_osal_free() (plain memory)
 * - DMA memory: struct ecore_dma_mem, ecore_osal_dma_alloc(),
 *               ecore_osal_dma_free(), ecore_osal_iova2virt()
 * - time:       ecore_osal_udelay() (sleeps), ecore_osal_time_us()
 * - locks:      ecore_osal_spinlock_t and its four calls
 * - byte order: the device is little-endian: OMNI_LE16/32/64 from
 *               lib/common's omni_bytes.h (host <-> LE), and its loads/stores
 * - barriers:   ecore_osal_wmb(), ecore_osal_rmb()
 *
 * Register and doorbell accesses do not come through here: they go through
 * the device's ops table (struct ecore_bar_ops, ecore.h), a mapped BAR on
 * silicon and calls into model/ on the model.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_atomic.h>
#include <rte_common.h>
#include <rte_log.h>
#include <rte_spinlock.h>

#include "omni_bytes.h"

/* ---- log ---- */

/** The one log type of net_e4 (PMD, base layer, model): pmd.net.e4. */
extern int e4_logtype;

/** Log at @p level (ERR, WARNING, NOTICE, INFO, DEBUG), prefixed with the function. */
#define ECORE_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, e4_logtype, "e4: %s(): " fmt "\n", \
		__func__, ## __VA_ARGS__)

/* ---- heap (not DMA-able) ---- */

/** Zeroed heap memory, or NULL. */
static inline void *
ecore_osal_zalloc(size_t len)
{
	return calloc(1, len);
}

/** Free what ecore_osal_zalloc() returned (NULL is fine). */
static inline void
ecore_osal_free(void *p)
{
	free(p);
}

/* ---- DMA memory ---- */

/** A block of DMA memory: where the CPU and the device see it. */
struct ecore_dma_mem {
	void *va;		/**< NULL when none */
	uint64_t iova;		/**< device address of va (IOVA-contiguous block) */
	size_t len;		/**< bytes */
	const void *priv;	/**< the environment's handle (a memzone) */
};

/**
 * Reserve zeroed, IOVA-contiguous DMA memory named "<dev>_<what><idx>".
 * Every block is counted (ecore_osal_dma_in_use()) so tests can prove that a
 * failed bring-up released everything it took.
 *
 * @return 0, or -ENAMETOOLONG / -ENOMEM / -EFAULT (no IOVA) (logged).
 */
int ecore_osal_dma_alloc(struct ecore_dma_mem *m, const char *dev, const char *what,
			 unsigned int idx, size_t len, unsigned int align);

/** Free DMA memory (an empty one is fine); @p m is emptied. */
void ecore_osal_dma_free(struct ecore_dma_mem *m);

/** Blocks of DMA memory reserved and not yet freed, process-wide. */
unsigned int ecore_osal_dma_in_use(void);

/**
 * The CPU address of @p len bytes at device address @p iova, or NULL when
 * they are not one contiguous block of the process's DMA memory (the model's
 * DMA engine uses this: a bad address from the driver is a counted fault,
 * never a wild access).
 */
void *ecore_osal_iova2virt(uint64_t iova, size_t len);

/* ---- time ---- */

/** Sleep for @p us microseconds (yields the CPU). */
static inline void
ecore_osal_udelay(unsigned int us)
{
	struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/** Monotonic time in microseconds. */
static inline uint64_t
ecore_osal_time_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* ---- locks ---- */

typedef rte_spinlock_t ecore_osal_spinlock_t;

static inline void
ecore_osal_spin_init(ecore_osal_spinlock_t *l)
{
	rte_spinlock_init(l);
}

static inline void
ecore_osal_spin_lock(ecore_osal_spinlock_t *l)
{
	rte_spinlock_lock(l);
}

static inline void
ecore_osal_spin_unlock(ecore_osal_spinlock_t *l)
{
	rte_spinlock_unlock(l);
}

/* ---- barriers (stores to DMA memory before a register write) ---- */

static inline void
ecore_osal_wmb(void)
{
	rte_wmb();
}

static inline void
ecore_osal_rmb(void)
{
	rte_rmb();
}

/* ---- arithmetic ---- */

#define ECORE_ALIGN_CEIL(v, a) RTE_ALIGN_CEIL(v, a)
#define ECORE_DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#define ECORE_ARRAY_SIZE(a) RTE_DIM(a)

#endif /* _ECORE_OSAL_H_ */
