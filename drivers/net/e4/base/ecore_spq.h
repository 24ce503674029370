/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

#ifndef _ECORE_SPQ_H_
#define _ECORE_SPQ_H_

/**
 * @file
 * The slow-path queue and the event queue (the guide's chapter "Slow Path
 * Queue"): ramrods are posted as 16 B elements on the SPQ (a SINGLE chain of
 * 256 whose base the firmware finds in the CORE connection's context) and
 * announced by a doorbell with the new producer; the firmware completes each
 * with an EQE (a PBL chain) that carries the ramrod's echo (the SPQ producer
 * at post time), and writes its EQ producer to a PI of the slow-path SB.
 *
 * Completions may come out of order: they are matched by echo, and the SPQ's
 * slots are retired in order through a bitmap (struct ecore_spq_echo_map).
 *
 * Two completion modes: EBLOCK (the post waits, running the slow-path DPC
 * itself, up to block_timeout_ms) and CB (the post returns; the callback runs
 * from the DPC). A CB callback runs with the DPC's lock held: it must not
 * post an EBLOCK ramrod.
 */

#include "ecore.h"
#include "ecore_chain.h"
#include "ecore_hsi.h"

/** SPQ ring size (one page of 16 B elements). */
#define ECORE_SPQ_RING_SIZE 256
/** Bytes of ramrod data per SPQ entry (the largest ETH ramrod is 432 B). */
#define ECORE_SPQ_DATA_SIZE 512
/** EBLOCK: default wait for a completion. */
#define ECORE_SPQ_BLOCK_TIMEOUT_MS 1000
/** EBLOCK: polling without sleeping for this long first. */
#define ECORE_SPQ_BLOCK_SPIN_US 5000
/** USTORM_EQE_CONS_OFFSET(pf) in USDM RAM: base 0x0, 8 per PF (size 2). */
#define ECORE_USTORM_EQE_CONS_OFFSET(pf) (0x0u + 8u * (pf))

/* ---- the echo bitmap (no memory, no EAL: unit-tested alone) ---- */

/** Echoes of ramrods in flight, retired in order as they complete in any order. */
struct ecore_spq_echo_map {
	uint16_t size;		/**< ring size (power of two, <= ECORE_SPQ_RING_SIZE) */
	uint16_t cons;		/**< oldest echo not retired */
	uint16_t prod;		/**< next echo to hand out */
	uint64_t done[ECORE_SPQ_RING_SIZE / 64];	/**< completed, not yet retired */
	uint64_t dup;		/**< completions of an echo already completed */
	uint64_t unknown;	/**< completions of an echo not in flight */
};

/** What a completion was. */
enum ecore_echo_result {
	ECORE_ECHO_OK,		/**< in flight: now complete */
	ECORE_ECHO_DUP,		/**< completed before (counted, ignored) */
	ECORE_ECHO_UNKNOWN,	/**< not in flight (counted, ignored) */
};

/** Empty map for a ring of @p size (a power of two). */
void ecore_spq_echo_init(struct ecore_spq_echo_map *map, uint16_t size);
/** Echoes in flight (handed out, not retired). */
uint16_t ecore_spq_echo_in_flight(const struct ecore_spq_echo_map *map);
/** Hand out the next echo. @return 0 or ECORE_BUSY (the ring is full). */
enum _ecore_status_t ecore_spq_echo_take(struct ecore_spq_echo_map *map, uint16_t *echo);
/**
 * Complete @p echo; retire every completed echo from cons on.
 * @param retired  slots retired now (the SPQ consumer moves by this much)
 */
enum ecore_echo_result ecore_spq_echo_done(struct ecore_spq_echo_map *map, uint16_t echo,
					   uint16_t *retired);

/* ---- posting ---- */

/** How a ramrod's completion is reported. */
enum ecore_spq_mode {
	ECORE_SPQ_MODE_EBLOCK,	/**< the post waits for it */
	ECORE_SPQ_MODE_CB,	/**< the callback runs from the DPC */
};

/** CB mode: what to call on completion. */
struct ecore_spq_comp_cb {
	void (*function)(struct ecore_hwfn *p_hwfn, void *cookie, uint8_t fw_return_code);
	void *cookie;
};

/** What ecore_sp_init_request() needs besides the header. */
struct ecore_sp_init_data {
	uint32_t cid;				/**< the connection (SPQ's own for COMMON) */
	enum ecore_spq_mode comp_mode;
	const struct ecore_spq_comp_cb *p_comp_data;	/**< CB mode */
};

/** A ramrod being built or in flight. */
struct ecore_spq_entry {
	struct slow_path_element elem;	/**< what goes on the ring */
	void *data;			/**< ramrod data (ECORE_SPQ_DATA_SIZE, DMA memory) */
	uint64_t data_iova;
	bool has_data;			/**< data_ptr = data_iova (else 0) */
	enum ecore_spq_mode comp_mode;
	struct ecore_spq_comp_cb comp_cb;
	bool in_use;
	bool posted;
	bool abandoned;			/**< EBLOCK that timed out: late completion dropped */
	volatile bool done;
	uint8_t fw_return_code;
};

/** Counters of the SPQ/EQ (ecore_spq_stats()). */
struct ecore_spq_stats {
	uint64_t posted;
	uint64_t completed;
	uint64_t fw_errors;	/**< completions with fw_return_code != 0 */
	uint64_t timeouts;	/**< EBLOCK posts that gave up */
	uint64_t late;		/**< completions of abandoned entries */
	uint64_t dup_echo;
	uint64_t unknown_echo;
	uint64_t async_eqes;	/**< EQEs not completing a ramrod */
	uint64_t eqes;
};

/** Allocate the SPQ: its ring, entries and their ramrod data (DMA memory). */
enum _ecore_status_t ecore_spq_alloc(struct ecore_hwfn *p_hwfn);
/**
 * Make the SPQ ready: empty ring and bitmap, the CORE CID acquired (once),
 * the ring base written into that connection's xstorm context, the doorbell
 * address. Needs the context tables (ecore_cxt_tables_alloc()); call it after
 * ecore_cxt_mngr_setup() (which zeroes every context).
 */
void ecore_spq_setup(struct ecore_hwfn *p_hwfn);
/** Free the SPQ (entries still in flight included; none is fine). */
void ecore_spq_free(struct ecore_hwfn *p_hwfn);
/** EBLOCK's wait (tests shorten it). */
void ecore_spq_set_block_timeout_ms(struct ecore_hwfn *p_hwfn, uint32_t ms);
/** The SPQ's CID (after setup). */
uint32_t ecore_spq_get_cid(struct ecore_hwfn *p_hwfn);
/** Copy the counters. */
void ecore_spq_stats(struct ecore_hwfn *p_hwfn, struct ecore_spq_stats *st);

/** Allocate the EQ: a PBL chain of @p num_elem EQEs (rounded up to pages). */
enum _ecore_status_t ecore_eq_alloc(struct ecore_hwfn *p_hwfn, uint16_t num_elem);
/** Make the EQ ready: empty chain, its callback on a PI of the slow-path SB. */
void ecore_eq_setup(struct ecore_hwfn *p_hwfn);
/** Free the EQ (none is fine). */
void ecore_eq_free(struct ecore_hwfn *p_hwfn);
/**
 * Consume the EQ up to the firmware's producer (the SB PI): complete each
 * EQE's ramrod by echo, then give the slots back (USTORM_EQE_CONS).
 */
enum _ecore_status_t ecore_eq_completion(struct ecore_hwfn *p_hwfn);

/**
 * Take an entry for a ramrod: header (cid, cmd, protocol) set, data zeroed.
 * @return 0, ECORE_BUSY (every entry in use) or ECORE_INVAL (no SPQ).
 */
enum _ecore_status_t ecore_sp_init_request(struct ecore_hwfn *p_hwfn,
					   struct ecore_spq_entry **pp_ent, uint8_t cmd,
					   uint8_t protocol,
					   const struct ecore_sp_init_data *p_data);
/**
 * Post @p p_ent (from ecore_sp_init_request()): echo, ring, doorbell.
 * EBLOCK: waits; @return 0, ECORE_IO (fw_return_code != 0: in
 * *fw_return_code and the log) or ECORE_TIMEOUT. CB: @return 0 once posted.
 * ECORE_BUSY when the ring is full (the entry is given back).
 */
enum _ecore_status_t ecore_spq_post(struct ecore_hwfn *p_hwfn, struct ecore_spq_entry *p_ent,
				    uint8_t *fw_return_code);
/** Give back an entry that was not posted. */
void ecore_spq_return_entry(struct ecore_hwfn *p_hwfn, struct ecore_spq_entry *p_ent);

/* ---- common ramrods (EBLOCK) ---- */

/**
 * PF_START: the EQ's PBL and pages, the slow-path SB and the EQ's PI, the
 * engine, personality ETH, the ETH HSI version.
 */
enum _ecore_status_t ecore_sp_pf_start(struct ecore_hwfn *p_hwfn, struct ecore_ptt *p_ptt,
				       uint8_t mf_mode, bool allow_npar_tx_switch);
/** PF_STOP (no data). */
enum _ecore_status_t ecore_sp_pf_stop(struct ecore_hwfn *p_hwfn);
/** COMMON EMPTY: the firmware answers at once (a liveness test). */
enum _ecore_status_t ecore_sp_heartbeat_ramrod(struct ecore_hwfn *p_hwfn);

#endif /* _ECORE_SPQ_H_ */
