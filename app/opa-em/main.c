/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 omniplane authors
 */

/*
 * opa-em: the Ethernet Manager. Configures VNIC ports through their VEMA
 * agents over one fabric port (any DPDK port carrying 16B packets).
 *
 *   opa-em [EAL options] -- [options] apply|status|table|watch|serve CONFIG
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_random.h>

#include <omni_num.h>
#include <omni_signal.h>
#include "em_client.h"
#include "em_cmd.h"
#include "em_config.h"

RTE_LOG_REGISTER_DEFAULT(em_logtype, NOTICE);

/* SIGHUP (serve): load the configuration file again */
static volatile sig_atomic_t reload;

static void
on_hup(int sig)
{
	RTE_SET_USED(sig);
	reload = 1;
}

static void
usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [EAL options] -- [options] COMMAND CONFIG\n"
		"commands:\n"
		"  apply    configure every vport of CONFIG, verify by reading back\n"
		"  status   print state and counters of every vport of CONFIG\n"
		"  table    print every vport's MAC table, read from its node\n"
		"  watch    print traps; re-read MAC lists and link state on each\n"
		"  serve    apply, then keep the MAC tables in step with the stations\n"
		"           the vports report and apply again a node that restarts,\n"
		"           until SIGINT/SIGTERM or --seconds; SIGHUP reloads CONFIG\n"
		"options:\n"
		"  --port N          fabric port id (default 0)\n"
		"  --timeout-ms N    wait per try (default 500)\n"
		"  --retries N       resends after the first try (default 3)\n"
		"  --link-wait-ms N  wait for the fabric port's link (default 5000)\n"
		"  --count N         watch: stop after N traps (exit 3 if fewer came)\n"
		"  --seconds N       watch, serve: stop after N seconds\n"
		"  --poll-ms N       serve: read every interface list this often\n"
		"                    (default 2000; traps ask sooner)\n"
		"exit: 0 ok, 1 usage or bad config (nothing sent), 2 error status or\n"
		"      read-back mismatch, 3 node unreachable (or too few traps)\n",
		prog);
}

/* What the command line gives. */
struct em_opts {
	uint64_t port, timeout, retries, link_wait;
	struct em_watch_opts wo;
	struct em_serve_opts so;
	const char *cmd, *path;
};

/* @return -1 to go on, or the exit status after --help or a bad command line. */
static int
parse_args(int argc, char **argv, struct em_opts *o)
{
	static const struct option longopts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "timeout-ms", required_argument, NULL, 't' },
		{ "retries", required_argument, NULL, 'r' },
		{ "link-wait-ms", required_argument, NULL, 'l' },
		{ "count", required_argument, NULL, 'c' },
		{ "seconds", required_argument, NULL, 's' },
		{ "poll-ms", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const cmds[] = { "apply", "status", "table", "watch", "serve" };
	uint64_t v = 0;
	int opt, idx = 0;
	unsigned int i;

	while ((opt = getopt_long(argc, argv, "h", longopts, &idx)) != -1) {
		const char *name = longopts[idx].name;
		bool ok = true;

		switch (opt) {
		case 'p':
			ok = omni_num_opt("opa-em", name, optarg, 0, RTE_MAX_ETHPORTS - 1,
					  OMNI_NUM_DEC, &o->port);
			break;
		case 't':
			ok = omni_num_opt("opa-em", name, optarg, 1, 3600000, OMNI_NUM_DEC,
					  &o->timeout);
			break;
		case 'r':
			ok = omni_num_opt("opa-em", name, optarg, 0, 100, OMNI_NUM_DEC,
					  &o->retries);
			break;
		case 'l':
			ok = omni_num_opt("opa-em", name, optarg, 0, 3600000, OMNI_NUM_DEC,
					  &o->link_wait);
			break;
		case 'c':
			ok = omni_num_opt("opa-em", name, optarg, 0, UINT_MAX, OMNI_NUM_DEC, &v);
			o->wo.count = (unsigned int)v;
			break;
		case 's':
			ok = omni_num_opt("opa-em", name, optarg, 0, 86400 * 365, OMNI_NUM_DEC, &v);
			o->wo.seconds = (unsigned int)v;
			o->so.seconds = (unsigned int)v;
			break;
		case 'P':
			ok = omni_num_opt("opa-em", name, optarg, 10, 3600000, OMNI_NUM_DEC, &v);
			o->so.poll_ms = (unsigned int)v;
			break;
		case 'h':
			usage(argv[0]);
			return EM_EXIT_OK;
		default:
			ok = false;
			break;
		}
		if (!ok) {
			usage(argv[0]);
			return EM_EXIT_USAGE;
		}
	}
	for (i = 0; argc - optind == 2 && i < RTE_DIM(cmds); i++)
		if (strcmp(argv[optind], cmds[i]) == 0)
			break;
	if (argc - optind != 2 || i == RTE_DIM(cmds)) {
		usage(argv[0]);
		return EM_EXIT_USAGE;
	}
	o->cmd = argv[optind];
	o->path = argv[optind + 1];
	return -1;
}

/* Run the command over the started client; its counters on stderr. */
static int
run_cmd(struct em_client *client, const struct em_opts *o, struct em_config *cfg)
{
	int rc;

	if (strcmp(o->cmd, "apply") == 0)
		rc = em_cmd_apply(client, cfg);
	else if (strcmp(o->cmd, "status") == 0)
		rc = em_cmd_status(client, cfg);
	else if (strcmp(o->cmd, "table") == 0)
		rc = em_cmd_table(client, cfg);
	else if (strcmp(o->cmd, "serve") == 0)
		rc = em_cmd_serve(client, cfg, &o->so);
	else
		rc = em_cmd_watch(client, cfg, &o->wo, &omni_stop);
	fprintf(stderr, "opa-em: requests %" PRIu64 ", retries %" PRIu64 ", timeouts %"
		PRIu64 ", replies %" PRIu64 ", traps %" PRIu64 ", ignored %" PRIu64 "\n",
		client->stats.requests, client->stats.retries, client->stats.timeouts,
		client->stats.replies, client->stats.traps, client->stats.ignored);
	return rc;
}

int
main(int argc, char **argv)
{
	struct em_opts o = { .timeout = 500, .retries = 3, .link_wait = 5000,
			     .so = { .poll_ms = 2000 } };
	struct em_client client;
	struct em_config cfg;
	bool port_used = false;
	char err[512];
	int ret, rc;

	/* results and diagnostics interleave in order when both are piped */
	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "opa-em: EAL init failed: %s\n", rte_strerror(rte_errno));
		return EM_EXIT_USAGE;
	}
	memset(&client, 0, sizeof(client));
	memset(&cfg, 0, sizeof(cfg));
	rc = parse_args(argc - ret, argv + ret, &o);
	if (rc >= 0)
		goto out;
	rc = EM_EXIT_USAGE;
	/* a bad file is refused before anything is sent */
	if (em_config_load(o.path, &cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "opa-em: %s\n", err);
		goto out;
	}
	if (!rte_eth_dev_is_valid_port((uint16_t)o.port)) {
		fprintf(stderr, "opa-em: no port %" PRIu64 " (give one with --vdev or a device)\n",
			o.port);
		goto out;
	}
	omni_stop_on_signals();
	if (strcmp(o.cmd, "serve") == 0) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_hup;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGHUP, &sa, NULL);
		o.so.path = o.path;
		o.so.reload = &reload;
	}
	client.port_id = (uint16_t)o.port;
	client.lid = cfg.em_lid;
	client.pkey = cfg.pkey;
	client.sl = cfg.sl;
	client.timeout_ms = (unsigned int)o.timeout;
	client.retries = (unsigned int)o.retries;
	client.stop = &omni_stop;
	/* random TIDs: late replies from an earlier run cannot match */
	client.next_tid = rte_rand();
	client.pool = rte_pktmbuf_pool_create("em_pool", 1023, 0, 0,
					      RTE_PKTMBUF_HEADROOM + 4096, rte_socket_id());
	if (client.pool == NULL) {
		fprintf(stderr, "opa-em: no mbuf pool: %s\n", rte_strerror(rte_errno));
		goto out;
	}
	port_used = true;
	if (em_client_start(&client, (unsigned int)o.link_wait) != 0)
		rc = EM_EXIT_UNREACHABLE;
	else
		rc = run_cmd(&client, &o, &cfg);
out:
	if (port_used)
		em_client_stop(&client);
	rte_mempool_free(client.pool);
	em_config_free(&cfg);
	rte_eal_cleanup();
	return rc;
}
