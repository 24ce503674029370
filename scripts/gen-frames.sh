#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# Write a pcap (linktype 1) of N pseudo-random Ethernet frames, reproducible
# from SEED: broadcast ARP, IPv4/UDP and IPv4/TCP (some 802.1Q-tagged) and
# IPv6/UDP between 8 hosts, MIN..MAX bytes (no FCS). With DST and SRC
# (aa:bb:cc:dd:ee:ff) every frame goes from SRC to DST, ARP included.
#
# Usage: scripts/gen-frames.sh N OUT.pcap [SEED] [MIN] [MAX] [DST SRC]
set -euo pipefail
n=${1:?usage: gen-frames.sh N OUT.pcap [SEED] [MIN] [MAX]}
out=${2:?usage: gen-frames.sh N OUT.pcap [SEED] [MIN] [MAX]}
seed=${3:-1}
min=${4:-60}
max=${5:-1514}
dst=${6:-}
src=${7:-}
txt=$(mktemp)
trap 'rm -f "$txt"' EXIT

awk -v n="$n" -v seed="$seed" -v min="$min" -v max="$max" -v dst="$dst" -v src="$src" '
function mac(h) { return sprintf("02 00 00 %02x 00 00", h) }
function rnd(k) { return int(rand() * k) }
function emit(bytes,   i, m, line) {
	m = split(bytes, b, " ")
	for (i = 1; i <= m; i++) {
		if ((i - 1) % 16 == 0) {
			if (line != "") print line
			line = sprintf("%06x", i - 1)
		}
		line = line " " b[i]
	}
	print line
}
function hex16(v) { return sprintf("%02x %02x", int(v / 256) % 256, v % 256) }
BEGIN {
	srand(seed)
	for (p = 0; p < n; p++) {
		s = rnd(8); d = (s + 1 + rnd(7)) % 8; kind = rnd(10)
		len = min + rnd(max - min + 1)
		if (kind == 0) {
			f = "ff ff ff ff ff ff " mac(s) " 08 06 00 01 08 00 06 04 00 01 " mac(s) \
			    sprintf(" 0a 00 00 %02x 00 00 00 00 00 00 0a 00 00 %02x", s + 1, d + 1)
		} else {
			f = mac(d) " " mac(s)
			l3 = len - 14
			if (kind <= 2) {
				f = f " 81 00 " sprintf("%02x %02x", rnd(8) * 32, 1 + rnd(200))
				l3 -= 4
			}
			if (kind == 9) {
				# IPv6/UDP: payload length, next header 17, hop limit 64
				f = f " 86 dd 60 00 00 00 " hex16(l3 - 40) " 11 40"
				for (i = 0; i < 15; i++) f = f " 00"
				f = f sprintf(" %02x", s + 1)
				for (i = 0; i < 15; i++) f = f " 00"
				f = f sprintf(" %02x", d + 1)
				f = f " " hex16(1024 + rnd(60000)) " 00 09 " hex16(l3 - 40) " 00 00"
			} else {
				# IPv4 (checksum left 0) with UDP, or TCP for kind 3
				f = f " 08 00 45 00 " hex16(l3) " 00 00 40 00 40 " (kind == 3 ? "06" : "11") " 00 00"
				f = f sprintf(" 0a 00 00 %02x 0a 00 00 %02x", s + 1, d + 1)
				if (kind == 3)
					f = f " " hex16(1024 + rnd(60000)) " 00 09 00 00 00 01 00 00 00 00 50 10 04 00 00 00 00 00"
				else
					f = f " " hex16(1024 + rnd(60000)) " 00 09 " hex16(l3 - 20) " 00 00"
			}
		}
		if (dst != "") {
			gsub(":", " ", dst); gsub(":", " ", src)
			f = dst " " src substr(f, 36)
		}
		cur = split(f, tmp, " ")
		for (i = cur; i < len; i++) f = f sprintf(" %02x", rnd(256))
		emit(f)
	}
}' > "$txt"
# text2pcap warns on stderr when run as root; show its output only on failure.
if ! msg=$(text2pcap -q -l 1 "$txt" "$out" 2>&1); then
	echo "$msg" >&2
	exit 1
fi
