/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * Interoperability: one device of ours as perftest's ib_send_bw,
 * ib_write_bw, ib_read_bw or ib_atomic_bw (RC), the server or the client,
 * so a real RoCE stack (rxe in a guest, running Debian's perftest 4.5) is
 * the other end.
 *
 * The out-of-band exchange is perftest's own over TCP (doc/vrdma-perf.md
 * names its sources): the versions, the cycle buffer and cache line sizes,
 * the path MTU, then the 108-byte connection data (LID, out_reads, QPN,
 * PSN, rkey, vaddr, GID, SRQN) in several handshakes, the run, for
 * write_bw the bandwidth reports, and a last handshake and "done". Every
 * exchange is the client writing first and the server reading first. The
 * test is not exchanged: each end is told it, and a mismatch shows as a
 * handshake that never comes.
 *
 * What can be checked of the peer's data is: every receive of send_bw has
 * the agreed length and was written (its buffer no longer our fill); every
 * place write_bw's client writes to was written while the bytes between and
 * after them were not; read_bw's server buffer is unchanged and every READ
 * of our client brought data; atomic_bw's places on our server hold the
 * count of atomics that hit each (FETCH_AND_ADD of 1) and our client's
 * originals step by one per place. perftest's own data is random and it
 * checks nothing of ours.
 */

#include <endian.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_random.h>

#include <omni_bytes.h>
#include <omni_signal.h>
#include "pt_wire.h"
#include "vperf.h"
#include "vperf_arp.h"

#define FILL 0x5a             /* our buffers before the peer writes or sends into them */
#define CYCLE_BUFFER 4096     /* ours: perftest's default is the page size */
#define CACHE_LINE 64         /* ours: perftest's DEF_CACHE_LINE_SIZE */
#define CQ_MOD 100            /* perftest's DEF_CQ_MOD: one send in 100 signaled */
#define CQ_MOD_SIZE_LIMIT 8192 /* above it perftest signals every send */
#define NO_PEAK_ITERS 20000   /* above it perftest reports no peak */
#define OUT_READS 16          /* what rc_connect gives our QP */
#define RUN_SECS 10           /* no progress this long ends the run */
#define ADD_VALUE 1           /* perftest's ATOMIC_ADD_VALUE (FETCH_AND_ADD) */
#define SWAP_VALUE 0          /* perftest's ATOMIC_SWAP_VALUE (CMP_AND_SWAP, compare 0) */

/* perftest's report lines (perftest_parameters.h RESULT_LINE, RESULT_FMT, REPORT_FMT) */
#define RESULT_LINE "----------------------------------------------------------" \
	"-----------------------------\n"
#define RESULT_FMT " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]" \
	"   MsgRate[Mpps]\n"
#define REPORT_FMT " %-7" PRIu64 "    %-10" PRIu64 "       %-7.2lf            %-7.2lf" \
	"\t\t   %-7.6lf\n"
/* the latency tests' (RESULT_FMT_LAT, REPORT_FMT_LAT) */
#define RESULT_FMT_LAT " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    " \
	"t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] \n"
#define REPORT_FMT_LAT " %-7u %" PRIu64 "          %-7.2f        %-7.2f      %-7.2f  \t       " \
	"%-7.2f     \t%-7.2f\t\t%-7.2f \t\t%-7.2f\n"
#define LAT_MEASURE_TAIL 2    /* the slowest round trips left out of a latency report */
#define TELL_SIZE 16          /* below it random bytes may equal our fill: not checked */

static struct side me = { .name = "perftest" };
static bool client;
static int sock = -1;
static uint32_t cycle_buffer = CYCLE_BUFFER, cache_line = CACHE_LINE;
static uint64_t *tposted, *tcompleted; /* client: per message, for the peak */
static uint64_t *last_orig;           /* atomic_bw client: the last original per place */

/* send_lat, write_lat: ping-pong, each end its own report */
static bool
lat_test(void)
{
	return opt.pt_test == SEND_LAT || opt.pt_test == WRITE_LAT;
}

/* read_lat, atomic_lat: the client alone, one request at a time on one place */
static bool
lat_one_sided(void)
{
	return opt.pt_test == READ_LAT || opt.pt_test == ATOMIC_LAT;
}

static bool
atomic_test(void)
{
	return opt.pt_test == ATOMIC_BW || opt.pt_test == ATOMIC_LAT;
}

static const char *
test_name(void)
{
	switch (opt.pt_test) {
	case SEND_LAT:
		return "send_lat";
	case WRITE_LAT:
		return "write_lat";
	case READ_LAT:
		return "read_lat";
	case ATOMIC_LAT:
		return "atomic_lat";
	case SEND_BW:
		return "send_bw";
	case WRITE_BW:
		return "write_bw";
	case READ_BW:
		return "read_bw";
	default:
		return "atomic_bw";
	}
}

/* One exchange (perftest's ctx_xchg_data): the client writes first, the server reads first. */
static int
xchg(const void *mine, void *theirs, size_t len, unsigned int secs)
{
	if (client && vnet_write(sock, mine, len) != 0)
		return -1;
	if (vnet_read_within(sock, theirs, len, secs) != (ssize_t)len)
		return -1;
	if (!client && vnet_write(sock, mine, len) != 0)
		return -1;
	return 0;
}

/* The step between the places perftest writes to (its INC): a cache line at least. */
static uint32_t
inc(void)
{
	return opt.size > cache_line ? RTE_ALIGN_CEIL(opt.size, cache_line) : cache_line;
}

/* How many places perftest cycles through (1: messages above half the cycle buffer). */
static uint32_t
places(void)
{
	if (vperf_pt_lat())
		return 1; /* the latency tests use one place, the peer's vaddr */
	return opt.size <= cycle_buffer / 2 || opt.pt_test == ATOMIC_BW ? cycle_buffer / inc() : 1;
}

static struct pt_dest
our_dest(void)
{
	struct pt_dest d = {
		.lid = 0, .out_reads = OUT_READS, .qpn = me.qpn, .psn = me.psn,
		.rkey = me.rkey, .vaddr = vuf_rdma_gpa(me.d, me.buf),
	};

	memcpy(d.gid, me.gid, sizeof(d.gid));
	return d;
}

/* One handshake of connection data (ctx_hand_shake); later ones must name the same QP. */
static int
hand_shake(struct pt_dest *peer, bool first, unsigned int secs)
{
	struct pt_dest d = our_dest(), got;
	char mine[PT_KEY_LEN], theirs[PT_KEY_LEN];

	pt_dest_format(mine, &d);
	if (xchg(mine, theirs, sizeof(mine), secs) != 0) {
		fprintf(stderr, "vrdma-perf: perftest: the peer's connection data did not come\n");
		return -1;
	}
	if (pt_dest_parse(theirs, sizeof(theirs), &got) != 0) {
		fprintf(stderr, "vrdma-perf: perftest: the peer's connection data is not "
			"perftest's (%.*s)\n", (int)strnlen(theirs, sizeof(theirs)), theirs);
		return -1;
	}
	if (!first && (got.qpn != peer->qpn || got.psn != peer->psn)) {
		fprintf(stderr, "vrdma-perf: perftest: the peer's QP changed between handshakes\n");
		return -1;
	}
	*peer = got;
	return 0;
}

/* perftest's own address lines (BASIC_ADDR_FMT, RDMA_FMT, PERF_GID_FMT: the GID in decimal) */
static void
print_dest(const char *side, const struct pt_dest *d)
{
	unsigned int k;

	printf(" %s address: LID %#04x QPN %#06x PSN %#06x", side, d->lid, d->qpn, d->psn);
	if (opt.pt_test == READ_BW || opt.pt_test == READ_LAT)
		printf(" OUT %#04x", d->out_reads);
	if (opt.pt_test == WRITE_BW || opt.pt_test == READ_BW || opt.pt_test == WRITE_LAT ||
	    opt.pt_test == READ_LAT)
		printf(" RKey %#08x VAddr %#016" PRIx64, d->rkey, d->vaddr);
	printf("\n GID: ");
	for (k = 0; k < 16; k++)
		printf("%02d%s", d->gid[k], k < 15 ? ":" : "\n");
}

/*
 * The set-up exchange up to the first handshake: versions, the cycle
 * buffer and cache line, the path MTU (the lower of the two).
 * @return our path MTU code, or -1.
 */
static int
exchange_setup(uint8_t mtu_code)
{
	char v_mine[PT_VERSION_LEN], v_theirs[PT_VERSION_LEN];
	char m_mine[PT_MTU_LEN], m_theirs[PT_MTU_LEN];
	uint8_t s_mine[4], s_theirs[4];
	uint32_t cb, cl;
	int ver, mtu;

	pt_version_format(v_mine);
	if (xchg(v_mine, v_theirs, sizeof(v_mine), RUN_SECS) != 0)
		goto lost;
	ver = pt_version_parse(v_theirs, sizeof(v_theirs));
	if (ver < PT_VERSION_MIN) {
		fprintf(stderr, "vrdma-perf: perftest: peer version '%.*s': 5.70 or later "
			"expected\n", (int)strnlen(v_theirs, sizeof(v_theirs)), v_theirs);
		return -1;
	}
	omni_put_be32(s_mine, CYCLE_BUFFER);
	if (xchg(s_mine, s_theirs, 4, RUN_SECS) != 0)
		goto lost;
	cb = omni_get_be32(s_theirs);
	omni_put_be32(s_mine, CACHE_LINE);
	if (xchg(s_mine, s_theirs, 4, RUN_SECS) != 0)
		goto lost;
	cl = omni_get_be32(s_theirs);
	/* both ends take the larger; a page of 64 KiB at most, a line of 4 KiB */
	if (!rte_is_power_of_2(cb) || cb > 65536 || !rte_is_power_of_2(cl) || cl > 4096) {
		fprintf(stderr, "vrdma-perf: perftest: peer cycle buffer %u / cache line %u: "
			"powers of 2 up to 65536 / 4096 expected\n", cb, cl);
		return -1;
	}
	cycle_buffer = RTE_MAX(cb, (uint32_t)CYCLE_BUFFER);
	cache_line = RTE_MAX(cl, (uint32_t)CACHE_LINE);
	pt_mtu_format(m_mine, mtu_code);
	if (xchg(m_mine, m_theirs, sizeof(m_mine), RUN_SECS) != 0)
		goto lost;
	mtu = pt_mtu_parse(m_theirs, sizeof(m_theirs));
	if (mtu < 0) {
		fprintf(stderr, "vrdma-perf: perftest: peer MTU message is not 1..5\n");
		return -1;
	}
	printf("perftest: peer version %.*s, cycle buffer %u, cache line %u, MTU %u\n",
	       (int)strnlen(v_theirs, sizeof(v_theirs)), v_theirs, cycle_buffer, cache_line,
	       128u << RTE_MIN((uint8_t)mtu, mtu_code));
	return RTE_MIN(mtu, (int)mtu_code);
lost:
	fprintf(stderr, "vrdma-perf: perftest: the set-up exchange with the peer failed\n");
	return -1;
}

/* ---------------- the server's checks of the peer's data ---------------- */

static bool
all_fill(const uint8_t *p, uint32_t len)
{
	uint32_t k;

	for (k = 0; k < len; k++)
		if (p[k] != FILL)
			return false;
	return true;
}

/*
 * write_bw: each place the client wrote to (as many as it cycles through,
 * or as messages when fewer) holds something other than our fill, and no
 * byte between or after them changed.
 */
static int
check_written(void)
{
	uint32_t n = (uint32_t)RTE_MIN((uint64_t)places(), opt.iters), k;
	size_t end = (size_t)me.slots * me.slot, used;

	for (k = 0; k < n; k++) {
		const uint8_t *p = me.buf + (size_t)k * inc();

		if (opt.size >= TELL_SIZE && all_fill(p, opt.size)) {
			fprintf(stderr, "vrdma-perf: perftest: place %u (offset %zu) was never "
				"written\n", k, (size_t)k * inc());
			return -1;
		}
		if (k + 1 < n && !all_fill(p + opt.size, inc() - opt.size)) {
			fprintf(stderr, "vrdma-perf: perftest: bytes after place %u changed\n", k);
			return -1;
		}
	}
	used = (size_t)(n - 1) * inc() + opt.size;
	if (!all_fill(me.buf + used, (uint32_t)(end - used))) {
		fprintf(stderr, "vrdma-perf: perftest: bytes beyond the places written changed\n");
		return -1;
	}
	printf("perftest: %u places of %u bytes written, nothing around them\n", n, opt.size);
	return 0;
}

/* read_bw: READs leave our buffer as it was. */
static int
check_unchanged(void)
{
	if (!all_fill(me.buf, me.slots * me.slot)) {
		fprintf(stderr, "vrdma-perf: perftest: the buffer the client read changed\n");
		return -1;
	}
	printf("perftest: the buffer read is unchanged\n");
	return 0;
}

/* An atomic place: its first 8 bytes the counter (0 before the run), the rest our fill. */
static uint64_t
place_value(uint32_t k)
{
	uint64_t v;

	memcpy(&v, me.buf + (size_t)k * inc(), sizeof(v));
	return le64toh(v);
}

static void
atomic_places_zero(void)
{
	uint32_t k;

	for (k = 0; k < places(); k++)
		memset(me.buf + (size_t)k * inc(), 0, 8);
}

/*
 * atomic_bw: place k took every k-th atomic of --iters (FETCH_AND_ADD of 1:
 * it counts them; CMP_AND_SWAP 0 -> 0: it stays 0), no byte around changed.
 */
static int
check_atomics(void)
{
	uint64_t n = places(), want;
	uint32_t k;

	for (k = 0; k < n; k++) {
		want = opt.cmp_swap ? 0 : (opt.iters / n + (k < opt.iters % n ? 1 : 0)) * ADD_VALUE;
		if (place_value(k) != want) {
			fprintf(stderr, "vrdma-perf: perftest: place %u holds %" PRIu64 ", %" PRIu64
				" expected (%s)\n", k, place_value(k), want, opt.cmp_swap ?
				"CMP_AND_SWAP 0 -> 0" : "FETCH_AND_ADD of 1, one per atomic");
			return -1;
		}
		if (!all_fill(me.buf + (size_t)k * inc() + 8, inc() - 8)) {
			fprintf(stderr, "vrdma-perf: perftest: bytes after place %u changed\n", k);
			return -1;
		}
	}
	if (!all_fill(me.buf + n * inc(), (uint32_t)((size_t)me.slots * me.slot - n * inc()))) {
		fprintf(stderr, "vrdma-perf: perftest: bytes beyond the places changed\n");
		return -1;
	}
	printf("perftest: %" PRIu64 " places hold the %s of %" PRIu64 " atomics, nothing around "
	       "them changed\n", n, opt.cmp_swap ? "unchanged 0" : "count", opt.iters);
	return 0;
}

/* UD: a receive holds the 40-byte GRH before the message (perftest's UD_ADDITION) */
static uint32_t
grh(void)
{
	return opt.pt_ud ? GRH_LEN : 0;
}

static int
post_recv(uint64_t id)
{
	uint32_t slot = (uint32_t)(id % me.slots);
	struct vrdma_sge g = side_sge(&me, slot, opt.size + grh());

	memset(me.buf + (size_t)slot * me.slot, FILL, opt.size + grh());
	return vuf_rdma_post_recv(me.d, me.qpn, id, &g, 1);
}

/*
 * Poll the CQ into @p wc; RUN_SECS without a completion ends the run, saying
 * how far it got (@p count of --iters @p what). @return completions, or -1.
 */
static int
poll_progress(struct vrdma_cq_req *wc, uint64_t *last, uint64_t count, const char *what)
{
	int n = vuf_rdma_poll_cq(me.d, me.cqn, wc, POLL_BURST);

	if (n > 0) {
		*last = rte_get_timer_cycles();
	} else if (n == 0 && rte_get_timer_cycles() - *last > RUN_SECS * rte_get_timer_hz()) {
		fprintf(stderr, "vrdma-perf: perftest: no progress for %u s: %" PRIu64 " of %"
			PRIu64 " %s\n", RUN_SECS, count, opt.iters, what);
		return -1;
	}
	return n;
}

/* send_bw server: take --iters messages, each of --size bytes and written. */
static int
serve_sends(uint64_t posted, uint64_t *t0, uint64_t *t1)
{
	struct vrdma_cq_req wc[POLL_BURST];
	uint64_t rcnt = 0, last = rte_get_timer_cycles();
	int n, i;

	while (!omni_stop && rcnt < opt.iters) {
		vnet_serve(NULL);
		n = poll_progress(wc, &last, rcnt, "received");
		if (n < 0)
			return -1;
		for (i = 0; i < n; i++) {
			uint64_t id = le64toh(wc[i].wr_id);

			if (!vperf_wc_ok(&wc[i], NULL))
				return -1;
			if (rcnt++ == 0)
				*t0 = rte_get_timer_cycles();
			if (le32toh(wc[i].byte_len) != opt.size + grh() ||
			    (opt.size >= TELL_SIZE && all_fill(me.buf + (size_t)(id % me.slots) *
							       me.slot + grh(), opt.size))) {
				fprintf(stderr, "vrdma-perf: perftest: message %" PRIu64 ": %u "
					"bytes "
					"(%u expected) or never written\n", rcnt - 1,
					le32toh(wc[i].byte_len), opt.size + grh());
				return -1;
			}
			if (posted < opt.iters && post_recv(posted++) != 0) {
				fprintf(stderr, "vrdma-perf: perftest: cannot post a receive\n");
				return -1;
			}
		}
	}
	*t1 = rte_get_timer_cycles();
	if (omni_stop)
		return -1;
	printf("perftest: %" PRIu64 " messages of %u bytes received, each of that length and "
	       "written\n", rcnt, opt.size);
	return 0;
}

/* ---------------- the client's run ---------------- */

static uint32_t
cq_mod(void)
{
	if (opt.size > CQ_MOD_SIZE_LIMIT)
		return 1;
	return RTE_MIN((uint32_t)CQ_MOD, opt.tx_depth);
}

static int
post_one(const struct pt_dest *peer, uint64_t seq)
{
	uint32_t slot = (uint32_t)(seq % me.slots), every = cq_mod();
	struct vrdma_sge g = side_sge(&me, slot, opt.size);
	struct vrdma_sq_req r;

	memset(&r, 0, sizeof(r));
	r.wr_id = htole64(seq);
	r.num_sge = htole32(1);
	/* as perftest: one in cq_mod, and the last */
	if (seq % every == every - 1 || seq + 1 == opt.iters)
		r.send_flags = VRDMA_SEND_SIGNALED;
	switch (opt.pt_test) {
	case WRITE_BW:
	case READ_BW:
	case READ_LAT:
		r.opcode = opt.pt_test == WRITE_BW ? VRDMA_WR_RDMA_WRITE : VRDMA_WR_RDMA_READ;
		r.rdma.remote_addr = htole64(peer->vaddr + (seq % places()) * inc());
		r.rdma.rkey = htole32(peer->rkey);
		/* a READ must fill its slot: our fill shows one that did not */
		if (opt.pt_test != WRITE_BW)
			memset(me.buf + (size_t)slot * me.slot, FILL, opt.size);
		break;
	case ATOMIC_BW:
	case ATOMIC_LAT:
		/* perftest's values: add 1, or compare 0 and swap 0 */
		r.opcode = opt.cmp_swap ? VRDMA_WR_ATOMIC_CMP_AND_SWP :
			VRDMA_WR_ATOMIC_FETCH_AND_ADD;
		r.atomic.remote_addr = htole64(peer->vaddr + (seq % places()) * inc());
		r.atomic.rkey = htole32(peer->rkey);
		r.atomic.compare_add = htole64(opt.cmp_swap ? 0 : ADD_VALUE);
		r.atomic.swap = htole64(SWAP_VALUE);
		break;
	default:
		r.opcode = VRDMA_WR_SEND;
		if (opt.pt_ud) {
			r.ud.remote_qpn = htole32(peer->qpn);
			r.ud.remote_qkey = htole32(QKEY); /* perftest's DEF_QKEY, the same */
			r.ud.ah = htole32(me.ahn);
		}
		break;
	}
	return vuf_rdma_post_send(me.d, me.qpn, &r, &g);
}

/*
 * What request @p seq brought back: a READ, data (not our fill); an atomic,
 * the place's original, one more than the last one there (FETCH_AND_ADD of
 * 1 on one RC QP: in order) or the same (CMP_AND_SWAP 0 -> 0).
 */
static int
check_back(uint64_t seq)
{
	const uint8_t *p = me.buf + (size_t)(seq % me.slots) * me.slot;
	uint64_t n = places(), place = seq % n, v;

	if ((opt.pt_test == READ_BW || opt.pt_test == READ_LAT) && opt.size >= TELL_SIZE &&
	    all_fill(p, opt.size)) {
		fprintf(stderr, "vrdma-perf: perftest: READ %" PRIu64 " brought nothing\n", seq);
		return -1;
	}
	if (!atomic_test())
		return 0;
	memcpy(&v, p, sizeof(v));
	v = le64toh(v);
	if (seq >= n && v != last_orig[place] + (opt.cmp_swap ? 0 : ADD_VALUE)) {
		fprintf(stderr, "vrdma-perf: perftest: atomic %" PRIu64 " on place %" PRIu64
			" returned %" PRIu64 " after %" PRIu64 "\n", seq, place, v,
			last_orig[place]);
		return -1;
	}
	last_orig[place] = v;
	return 0;
}

/* --iters requests, tx-depth in flight; the time of each post and signaled completion. */
static int
run_client(const struct pt_dest *peer)
{
	struct vrdma_cq_req wc[POLL_BURST];
	uint64_t posted = 0, done = 0, last = rte_get_timer_cycles();
	int n, i;

	while (!omni_stop && done < opt.iters) {
		while (posted < opt.iters && posted < done + opt.tx_depth) {
			tposted[posted] = rte_get_timer_cycles();
			if (post_one(peer, posted) != 0) {
				fprintf(stderr, "vrdma-perf: perftest: cannot post request %" PRIu64
					"\n", posted);
				return -1;
			}
			posted++;
		}
		n = poll_progress(wc, &last, done, "complete");
		if (n < 0)
			return -1;
		for (i = 0; i < n; i++) {
			uint64_t id = le64toh(wc[i].wr_id);

			if (!vperf_wc_ok(&wc[i], NULL))
				return -1;
			if (id >= opt.iters || id < done)
				return -1;
			tcompleted[id] = rte_get_timer_cycles();
			/* every request up to this one is complete: check what came back */
			for (; done <= id; done++)
				if (check_back(done) != 0)
					return -1;
		}
	}
	return omni_stop ? -1 : 0;
}

/*
 * The client's report as perftest works it out (print_report_bw): the
 * average from the first post to the last completion, the peak the best
 * rate between any post and any later signaled completion.
 */
static struct pt_report
client_report(void)
{
	uint64_t hz = rte_get_timer_hz(), n = opt.iters, every = cq_mod(), best = UINT64_MAX;
	double secs = (double)(tcompleted[n - 1] - tposted[0]) / (double)hz;
	struct pt_report r = { .size = opt.size, .iters = n };
	uint64_t i, j;

	r.bw_avg = (double)opt.size * (double)n / (secs * 1048576.0);
	r.msg_rate = (double)n / (secs * 1e6);
	if (n > NO_PEAK_ITERS)
		return r;
	for (i = 0; i < n; i++) {
		/* the first signaled completion at or after i (cq_mod need not be a power of 2) */
		for (j = (i + every) / every * every - 1; j < n; j += every)
			best = RTE_MIN(best, (tcompleted[j] - tposted[i]) / (j - i + 1));
		if (n % every != 0)
			best = RTE_MIN(best, (tcompleted[n - 1] - tposted[i]) / (n - i));
	}
	if (best != 0 && best != UINT64_MAX)
		r.bw_peak = (double)opt.size * (double)hz / ((double)best * 1048576.0);
	return r;
}

static void
print_report(const struct pt_report *r)
{
	printf(REPORT_FMT, r->size, r->iters, r->bw_peak, r->bw_avg, r->msg_rate);
}

/* write_bw's reports (xchg_bw_reports): size, iterations, peak, average, rate, one by one. */
static int
xchg_reports(const struct pt_report *mine, struct pt_report *theirs, unsigned int secs)
{
	uint8_t m[PT_REPORT_LEN], t[PT_REPORT_LEN];
	unsigned int k;

	pt_report_format(m, mine);
	for (k = 0; k < PT_REPORT_LEN; k += 8)
		if (xchg(m + k, t + k, 8, secs) != 0) {
			fprintf(stderr, "vrdma-perf: perftest: the report exchange failed\n");
			return -1;
		}
	return pt_report_parse(t, sizeof(t), theirs);
}

/* The last handshake and perftest's "done" (ctx_close_connection), both ways. */
static int
close_connection(struct pt_dest *peer, unsigned int secs)
{
	char done[sizeof("done")];

	if (hand_shake(peer, false, secs) != 0 || vnet_write(sock, "done", sizeof("done")) != 0 ||
	    vnet_read_within(sock, done, sizeof(done), RUN_SECS) != (ssize_t)sizeof(done) ||
	    memcmp(done, "done", sizeof(done)) != 0) {
		fprintf(stderr, "vrdma-perf: perftest: the closing exchange failed\n");
		return -1;
	}
	return 0;
}

/* ---------------- send_lat, write_lat ---------------- */

static uint64_t lat_sent, lat_got, lat_posted, lat_scnt; /* completions, receives, posted */

/*
 * Take what the CQ holds: our sends' completions (each signaled: tx-depth 1),
 * and send_lat's receives (of the agreed length, the receive posted again).
 */
static int
lat_poll(void)
{
	struct vrdma_cq_req wc[POLL_BURST];
	int n, i;

	n = vuf_rdma_poll_cq(me.d, me.cqn, wc, POLL_BURST);
	if (n < 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (!vperf_wc_ok(&wc[i], NULL))
			return -1;
		if (wc[i].opcode != VRDMA_WC_RECV) {
			lat_sent++;
			continue;
		}
		if (le32toh(wc[i].byte_len) != opt.size) {
			fprintf(stderr, "vrdma-perf: perftest: message %" PRIu64 ": %u bytes, %u "
				"expected\n", lat_got, le32toh(wc[i].byte_len), opt.size);
			return -1;
		}
		lat_got++;
		if (lat_posted < opt.iters && post_recv(lat_posted++) != 0)
			return -1;
	}
	return n;
}

/*
 * write_lat: message @p seq (from 1) has arrived when the last byte of our
 * slot 0 reads seq's low byte; perftest writes zeros and that byte.
 */
static bool
lat_arrived(uint64_t seq)
{
	return __atomic_load_n(me.buf + opt.size - 1, __ATOMIC_ACQUIRE) == (uint8_t)seq;
}

static int
lat_check_zeros(uint64_t seq)
{
	uint32_t k;

	for (k = 0; k + 1 < opt.size; k++)
		if (me.buf[k] != 0) {
			fprintf(stderr, "vrdma-perf: perftest: message %" PRIu64 " byte %u is %u, "
				"0 expected\n", seq, k, me.buf[k]);
			return -1;
		}
	return 0;
}

/* Wait until @p done() holds, serving the Ethernet side; RUN_SECS without it is a stall. */
static int
lat_wait(bool (*done)(uint64_t), uint64_t arg, const char *what)
{
	uint64_t hz = rte_get_timer_hz(), start = rte_get_timer_cycles();
	unsigned int spins = 0;

	while (!done(arg)) {
		if (omni_stop)
			return -1;
		if (opt.pt_test == SEND_LAT || lat_sent < lat_scnt) {
			if (lat_poll() < 0)
				return -1;
		}
		if (++spins % 1024 == 0) {
			vnet_serve(NULL);
			if (rte_get_timer_cycles() - start > RUN_SECS * hz) {
				fprintf(stderr, "vrdma-perf: perftest: no %s %" PRIu64
					" for %u s\n",
					what, arg, RUN_SECS);
				return -1;
			}
		}
	}
	return 0;
}

static bool
lat_received(uint64_t seq)
{
	return opt.pt_test == SEND_LAT ? lat_got >= seq : lat_arrived(seq);
}

static bool
lat_send_done(uint64_t seq)
{
	return lat_sent >= seq;
}

/*
 * perftest's ping-pong (run_iter_lat_send, run_iter_lat_write): one side
 * waits for message i before it sends its own i; send_lat's client and
 * write_lat's server go first. Each post's time is kept for the report.
 */
static int
run_lat(const struct pt_dest *peer)
{
	bool goes_first = opt.pt_test == SEND_LAT ? client : !client;
	uint32_t post_slot = 1;
	uint64_t rcnt = 0;

	while (lat_scnt < opt.iters || rcnt < opt.iters) {
		if (rcnt < opt.iters && !(lat_scnt == 0 && goes_first)) {
			rcnt++;
			if (lat_wait(lat_received, rcnt, "message") != 0)
				return -1;
			if (opt.pt_test == WRITE_LAT && lat_check_zeros(rcnt) != 0)
				return -1;
		}
		if (lat_scnt < opt.iters) {
			struct vrdma_sge g = side_sge(&me, post_slot, opt.size);
			struct vrdma_sq_req r;

			memset(&r, 0, sizeof(r));
			r.wr_id = htole64(lat_scnt);
			r.num_sge = htole32(1);
			r.send_flags = VRDMA_SEND_SIGNALED;
			if (opt.pt_test == WRITE_LAT) {
				/* zeros, and the message's number in the last byte */
				me.buf[(size_t)post_slot * me.slot + opt.size - 1] =
					(uint8_t)(lat_scnt + 1);
				r.opcode = VRDMA_WR_RDMA_WRITE;
				r.rdma.remote_addr = htole64(peer->vaddr);
				r.rdma.rkey = htole32(peer->rkey);
			} else {
				r.opcode = VRDMA_WR_SEND;
			}
			tposted[lat_scnt] = rte_get_timer_cycles();
			if (vuf_rdma_post_send(me.d, me.qpn, &r, &g) != 0) {
				fprintf(stderr, "vrdma-perf: perftest: cannot post message %" PRIu64
					"\n", lat_scnt);
				return -1;
			}
			lat_scnt++;
			/* as perftest: each send's completion before the next step */
			if (lat_wait(lat_send_done, lat_scnt, "completion of message") != 0)
				return -1;
		}
	}
	printf("perftest: %" PRIu64 " messages each way, every one received %s\n", opt.iters,
	       opt.pt_test == WRITE_LAT ? "as zeros and its number, in order" :
	       "of its length");
	return 0;
}

/*
 * read_lat, atomic_lat client (run_iter_lat): one request at a time to the
 * peer's vaddr, each signaled and waited for, its post time kept; what it
 * brought checked as the bandwidth tests' (check_back).
 */
static int
run_lat_client(const struct pt_dest *peer)
{
	uint64_t seq;

	for (seq = 0; seq < opt.iters; seq++) {
		tposted[seq] = rte_get_timer_cycles();
		if (post_one(peer, seq) != 0) {
			fprintf(stderr, "vrdma-perf: perftest: cannot post request %" PRIu64 "\n",
				seq);
			return -1;
		}
		lat_scnt = seq + 1;
		if (lat_wait(lat_send_done, seq + 1, "completion of request") != 0 ||
		    check_back(seq) != 0)
			return -1;
	}
	printf("perftest: %" PRIu64 " %s, each %s\n", opt.iters,
	       opt.pt_test == READ_LAT ? "READs" : "atomics",
	       opt.pt_test == READ_LAT ? "brought data" : "original as expected on its place");
	return 0;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * perftest's latency report (print_report_lat): the gaps between our posts
 * halved (a round trip is two messages), sorted, the LAT_MEASURE_TAIL
 * largest left out; the median, mean, deviation (perftest truncates each
 * term to an integer: so do we) and the 99 and 99.9 percentiles.
 */
static int
lat_report(void)
{
	/* a READ or an atomic is a round trip in one request: not halved */
	double q = (double)rte_get_timer_hz() / 1e6 * (lat_one_sided() ? 1 : 2), sum = 0, avg,
		dev = 0, median;
	uint64_t *d, k;
	int64_t n;

	if (opt.iters < LAT_MEASURE_TAIL + 2)
		return -1;
	d = calloc(opt.iters, sizeof(*d));
	if (d == NULL)
		return -1;
	for (k = 0; k + 1 < opt.iters; k++)
		d[k] = tposted[k + 1] - tposted[k];
	qsort(d, opt.iters - 1, sizeof(*d), cmp_u64);
	n = (int64_t)opt.iters - 1 - LAT_MEASURE_TAIL;
	median = (n - 1) % 2 ? (double)((d[n / 2] + d[n / 2 - 1]) / 2) : (double)d[n / 2];
	for (k = 0; k < (uint64_t)n; k++)
		sum += (double)d[k] / q;
	avg = sum / (double)n;
	for (k = 0; k < (uint64_t)n; k++) {
		int t = (int)(avg - (double)d[k] / q);

		dev += (int)pow(t, 2);
	}
	printf(REPORT_FMT_LAT, opt.size, opt.iters, (double)d[0] / q, (double)d[n] / q,
	       median / q, avg, sqrt(dev / (double)n),
	       (double)d[(int64_t)ceil((double)n * 0.99)] / q,
	       (double)d[(int64_t)ceil((double)n * 0.999)] / q);
	free(d);
	return 0;
}

/* Connection data, QP connected, the handshakes before the run. */
static int
connect_qp(struct pt_dest *peer, uint8_t mtu)
{
	struct vperf_peer vp;
	struct pt_dest d = our_dest();
	unsigned int k;

	if (hand_shake(peer, true, RUN_SECS) != 0)
		return -1;
	if (vperf_gid_is_v4(peer->gid) != vperf_gid_is_v4(me.gid)) {
		fprintf(stderr, "vrdma-perf: perftest: the peer's GID and ours are not of one "
			"family (IPv4-mapped, IPv6)\n");
		return -1;
	}
	memset(&vp, 0, sizeof(vp));
	vp.qpn = peer->qpn;
	vp.psn = peer->psn;
	memcpy(vp.gid, peer->gid, sizeof(vp.gid));
	if (vnet_resolve("perftest", client ? "server" : "client", &vp) != 0 ||
	    (opt.pt_ud ? ud_connect(&me, &vp) : rc_connect(&me, &vp, mtu)) != 0)
		return -1;
	print_dest("local", &d);
	print_dest("remote", peer);
	/* two more: send_bw one after the connect and one per QP, write_bw one per QP and one
	 * after RTR
	 */
	for (k = 0; k < 2; k++)
		if (hand_shake(peer, false, RUN_SECS) != 0)
			return -1;
	return 0;
}

static int
run(void)
{
	struct pt_dest peer;
	struct pt_report mine = { .size = opt.size, .iters = opt.iters }, theirs;
	uint32_t mtu_bytes;
	uint64_t t0 = 0, t1 = 0;
	uint8_t dev_mtu;
	int mtu;

	mtu = peer_path_mtu(me.mtu, &mtu_bytes);
	if (mtu < 0)
		return -1;
	dev_mtu = (uint8_t)mtu;
	sock = client ? vnet_connect("perftest") : vnet_accept("perftest");
	if (sock < 0)
		return -1;
	mtu = exchange_setup(dev_mtu);
	if (mtu < 0)
		return -1;
	/* the peer writes within the cycle buffer (or one message): our buffer must hold it */
	if ((size_t)me.slots * me.slot < (places() > 1 ? cycle_buffer : RTE_ALIGN_CEIL(opt.size,
										    cache_line))) {
		fprintf(stderr, "vrdma-perf: perftest: the peer's cycle buffer (%u bytes) is more "
			"than our buffer of %u x %u bytes\n", cycle_buffer, me.slots, me.slot);
		return -1;
	}
	if (opt.pt_ud && opt.size > (128u << mtu)) {
		fprintf(stderr, "vrdma-perf: perftest: --size %u: a UD message fits one packet of "
			"the path MTU, %u\n", opt.size, 128u << mtu);
		return -1;
	}
	if (!client && atomic_test())
		atomic_places_zero();
	if (connect_qp(&peer, (uint8_t)mtu) != 0)
		return -1;
	if (opt.pt_test == SEND_BW || lat_test()) {
		uint64_t posted = 0;

		/* send_bw's server and both ends of send_lat receive */
		if (opt.pt_test == SEND_LAT || (opt.pt_test == SEND_BW && !client))
			for (; posted < RTE_MIN((uint64_t)opt.rx_depth, opt.iters); posted++)
				if (post_recv(posted) != 0) {
					fprintf(stderr, "vrdma-perf: perftest: cannot post "
						"receive %"
						PRIu64 "\n", posted);
					return -1;
				}
		/* the receives are up: the client may start */
		if (hand_shake(&peer, false, RUN_SECS) != 0)
			return -1;
		if (lat_test()) {
			/* write_lat: slot 0 is where the peer writes, zeros before (as theirs) */
			memset(me.buf, 0, (size_t)me.slots * me.slot);
			lat_posted = posted;
			fputs(RESULT_LINE RESULT_FMT_LAT, stdout);
			if (run_lat(&peer) != 0 || lat_report() != 0)
				return -1;
			printf(RESULT_LINE);
			/* ib_write_lat ends there: no closing handshake, no "done" */
			return opt.pt_test == WRITE_LAT ? 0 : close_connection(&peer, RUN_SECS);
		}
		printf(RESULT_LINE RESULT_FMT);
		if (client ? run_client(&peer) != 0 : serve_sends(posted, &t0, &t1) != 0)
			return -1;
		if (client) {
			mine = client_report();
		} else {
			double secs = (double)(t1 - t0) / (double)rte_get_timer_hz();

			/* the server reports no peak (perftest: noPeak for a send_bw server) */
			mine.bw_avg = (double)opt.size * (double)opt.iters / (secs * 1048576.0);
			mine.msg_rate = (double)opt.iters / (secs * 1e6);
		}
		print_report(&mine);
		printf(RESULT_LINE);
		return close_connection(&peer, RUN_SECS);
	}
	if (lat_one_sided()) {
		/* one more handshake; the server then waits in the closing one */
		if (hand_shake(&peer, false, RUN_SECS) != 0)
			return -1;
		if (!client) {
			if (close_connection(&peer, opt.accept_secs) != 0)
				return -1;
			printf(RESULT_LINE);
			return opt.pt_test == READ_LAT ? check_unchanged() : check_atomics();
		}
		fputs(RESULT_LINE RESULT_FMT_LAT, stdout);
		if (run_lat_client(&peer) != 0 || lat_report() != 0)
			return -1;
		printf(RESULT_LINE);
		return close_connection(&peer, RUN_SECS);
	}
	/* write_bw, read_bw, atomic_bw */
	printf(RESULT_LINE RESULT_FMT);
	if (client) {
		if (run_client(&peer) != 0)
			return -1;
		mine = client_report();
		print_report(&mine);
		printf(RESULT_LINE);
		if (opt.pt_test == READ_BW)
			printf("perftest: %" PRIu64 " READs, each brought data\n", opt.iters);
		else if (opt.pt_test == ATOMIC_BW)
			printf("perftest: %" PRIu64 " atomics, each original as expected on its "
			       "place\n", opt.iters);
		/* the server's report is of nothing: taken, not printed */
		if (hand_shake(&peer, false, RUN_SECS) != 0 ||
		    xchg_reports(&mine, &theirs, RUN_SECS) != 0)
			return -1;
		return close_connection(&peer, RUN_SECS);
	}
	/* the server waits while the client writes, then prints the client's report */
	if (hand_shake(&peer, false, opt.accept_secs) != 0)
		return -1;
	memset(&mine, 0, sizeof(mine));
	if (xchg_reports(&mine, &theirs, RUN_SECS) != 0)
		return -1;
	print_report(&theirs);
	if (close_connection(&peer, RUN_SECS) != 0)
		return -1;
	printf(RESULT_LINE);
	if (opt.pt_test == WRITE_BW)
		return check_written();
	return opt.pt_test == READ_BW ? check_unchanged() : check_atomics();
}

int
perftest_run(void)
{
	uint32_t k;
	int status = 1;

	client = opt.connect_ip != 0;
	/* a server the peer writes, reads or sends to in places: room for a 64 KiB cycle buffer */
	if (!client && opt.pt_test != SEND_BW)
		opt.rx_depth = RTE_MAX(opt.rx_depth,
				       RTE_MIN((uint32_t)MAX_DEPTH,
					       65536 / RTE_ALIGN_CEIL(opt.size, CACHE_LINE) + 1));
	if (client || lat_test()) {
		tposted = calloc(opt.iters, sizeof(*tposted));
		tcompleted = calloc(opt.iters, sizeof(*tcompleted));
		/* a place per cache line of the largest cycle buffer taken */
		last_orig = calloc(65536 / CACHE_LINE, sizeof(*last_orig));
		if (tposted == NULL || tcompleted == NULL || last_orig == NULL) {
			fprintf(stderr, "vrdma-perf: no memory for %" PRIu64 " times\n", opt.iters);
			goto out;
		}
	}
	if (side_open(&me, opt.sock[0], opt.gid) != 0)
		goto out;
	/* the guest's Ethernet side: answer for our GID from now on, in every wait */
	if (vnet_start(&me) != 0)
		goto out;
	me.psn = (uint32_t)rte_rand() & 0xffffff;
	/* the server's buffer its fill, so what the peer wrote shows; the client's some data */
	memset(me.buf, FILL, (size_t)me.slots * me.slot);
	for (k = 0; client && k < me.slots; k++)
		memset(me.buf + (size_t)k * me.slot, (int)(k & 0xff), opt.size);
	printf("perftest %s%s %s: %u bytes, %" PRIu64 " iterations, tx-depth %u, rx-depth %u\n",
	       test_name(), opt.pt_ud ? " (UD)" : "", client ? "client" : "server", opt.size,
	       opt.iters, opt.tx_depth, opt.rx_depth);
	fflush(stdout);
	if (run() == 0)
		status = 0;
out:
	if (sock >= 0)
		close(sock);
	vnet_report("perftest");
	vnet_stop();
	if (me.d != NULL && me.qpn != 0)
		vuf_rdma_destroy_qp(me.d, me.qpn);
	vuf_rdma_close(me.d);
	free(tposted);
	free(tcompleted);
	free(last_orig);
	return status;
}
