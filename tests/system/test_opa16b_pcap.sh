#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 omniplane authors
#
# opa16b-pcap as a black box, judged by tshark: encapsulated captures decode
# back to the original Ethernet frames; the 16B fields are what was asked;
# decap restores the input byte for byte and counts each rejection; bad input
# fails cleanly with nothing left behind.
#
# Usage: test_opa16b_pcap.sh SRC_DIR BUILD_DIR
set -uo pipefail
. "$1/tests/system/lib.sh"
tool="$build/app/opa16b-pcap/opa16b-pcap"
lua="$src/app/opa16b-pcap/opa16b.lua"
user_dlt='uat:user_dlts:"User 0 (DLT=147)","eth_withoutfcs","20","","0",""'
ts() { tshark "$@" 2>/dev/null; }

"$src/scripts/gen-frames.sh" 400 "$work/in.pcap" 11 60 1514
"$src/scripts/gen-frames.sh" 50 "$work/jumbo.pcap" 12 1515 9000
# every short length 14..59 (zero-padded to 60 on encap)
for len in $(seq 14 59); do
	printf '000000'
	for i in $(seq 1 "$len"); do printf ' %02x' $(((i * 7 + len) % 256)); done
	echo
done > "$work/short.txt"
text2pcap -q -l 1 "$work/short.txt" "$work/short.pcap" 2>/dev/null

# 1. tshark decodes the encapsulated frames to the same Ethernet/IP fields.
fields=(-T fields -e eth.dst -e eth.src -e eth.type -e vlan.id -e ip.src -e ip.dst
	-e ip.len -e ipv6.dst -e udp.srcport -e udp.length -e tcp.srcport -e arp.dst.proto_ipv4)
for f in in jumbo; do
	"$tool" encap --slid 0x123456 --dlid 0xABCDEF --pkey 0x7fff --sc 31 --rc 7 \
		--entropy 0xa5 --vesw 4095 "$work/$f.pcap" "$work/$f.16b.pcap" >/dev/null
	expect_eq "encap $f: tshark decodes the Ethernet frames inside the 16B packets" \
		"$(ts -r "$work/$f.pcap" "${fields[@]}" | md5sum)" \
		"$(ts -r "$work/$f.16b.pcap" -o "$user_dlt" "${fields[@]}" | md5sum)"
done

# 2. the 16B fields, read by an independent decoder (our Lua dissector).
got=$(ts -X "lua_script:$lua" -r "$work/in.16b.pcap" -T fields -e opa16b.slid \
	-e opa16b.dlid -e opa16b.sc -e opa16b.rc -e opa16b.l2 -e opa16b.lt -e opa16b.l4 \
	-e opa16b.pkey -e opa16b.entropy -e opa16b.veswid -e opa16b.icrc | sort -u)
expect_eq "encap: every packet carries the requested 16B fields" \
	"$(printf '0x00123456\t0x00abcdef\t31\t7\t2\t1\t0x78\t0x7fff\t0x00a5\t0x0fff\t0x00000000')" "$got"
bad=$(ts -X "lua_script:$lua" -r "$work/in.16b.pcap" -T fields -e frame.len -e opa16b.len \
	-e opa16b.pad -e eth.trailer | awk -F'\t' '$1 != $2 * 8 || $1 % 8 != 0 { print }')
expect_eq "encap: Length counts the whole packet, a multiple of 8 bytes" "" "$bad"

# 3. decap restores the input byte for byte.
md5s() { ts -r "$1" -o frame.generate_md5_hash:TRUE -T fields -e frame.md5_hash; }
for f in in jumbo; do
	out=$("$tool" decap "$work/$f.16b.pcap" "$work/$f.back.pcap")
	expect_eq "decap $f: output frames identical to input" \
		"$(md5s "$work/$f.pcap")" "$(md5s "$work/$f.back.pcap")"
	expect_eq "decap $f: counts every packet decapsulated" \
		"decapsulated: $(ts -r "$work/$f.pcap" | wc -l)" "$(echo "$out" | head -1)"
done

# 4. short frames come back zero-padded to 60 bytes, content intact.
"$tool" encap "$work/short.pcap" "$work/short.16b.pcap" >/dev/null
"$tool" decap "$work/short.16b.pcap" "$work/short.back.pcap" >/dev/null
expect_eq "short frames: every one padded to 60 bytes" "60" \
	"$(ts -r "$work/short.back.pcap" -T fields -e frame.len | sort -u)"
orig=$(ts -r "$work/short.pcap" -T fields -e eth.src | md5sum)
expect_eq "short frames: Ethernet content kept" "$orig" \
	"$(ts -r "$work/short.back.pcap" -T fields -e eth.src | md5sum)"

# 5. decap --mtu: jumbo frames counted as oversize, each rejection by reason.
out=$("$tool" decap --mtu 1500 "$work/jumbo.16b.pcap" "$work/j1500.pcap")
expect_eq "decap --mtu 1500: 50 jumbo frames rejected as oversize" \
	"decapsulated: 0|rejected oversize: 50" \
	"$(echo "$out" | grep -E '^decapsulated|oversize' | paste -sd'|')"
# hand-made bad packets: TV1 with one defect each
tv1='01 00 b0 00 01 00 00 c0 78 f0 01 80 5a 00 00 00 00 00 01 00 ff ff ff ff ff ff 02 00 00 01 00 00
08 06 00 01 08 00 06 04 00 01 02 00 00 01 00 00 0a 00 00 01 00 00 00 00 00 00 0a 00 00 02 00 00
00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 03'
mutate() { # byte-index new-value [truncate-to]
	local -a b=($tv1)
	b[$1]=$2
	echo "000000 ${b[*]:0:${3:-88}}"
}
{
	echo "000000" $tv1                 # good (88 bytes, shared/facts TV1)
	mutate 7 a0                        # L2 = 1
	mutate 8 08                        # L4 = FM
	mutate 2 c0                        # Length 12 != 11
	mutate 87 0b                       # pad 11
	mutate 87 04                       # 59-byte frame
	mutate 0 01 24                     # truncated
} > "$work/bad.txt"
text2pcap -q -l 147 "$work/bad.txt" "$work/bad.pcap" 2>/dev/null
out=$("$tool" decap "$work/bad.pcap" "$work/bad.back.pcap" | paste -sd'|')
expect_eq "decap: each rejection reason counted" \
	"decapsulated: 1|rejected truncated: 1|rejected bad_l2: 1|rejected bad_l4: 1|rejected bad_length: 1|rejected bad_pad: 1|rejected runt: 1|rejected oversize: 0" \
	"$out"

# 6. bad input: clear error, non-zero exit, no output left behind.
rm -f "$work/x.pcap"
msg=$("$tool" decap "$work/in.pcap" "$work/x.pcap" 2>&1)
rc=$?
expect_eq "decap of an Ethernet capture: refused, no output" "1 no" \
	"$rc $([ -e "$work/x.pcap" ] && echo yes || echo no)"
expect_eq "decap of an Ethernet capture: one line says why" "1" \
	"$(echo "$msg" | grep -c 'linktype 1, expected 147')"
"$tool" encap --sc 32 "$work/in.pcap" "$work/x.pcap" 2>"$work/err"
expect_eq "encap --sc 32: too wide, refused" "2 no 1" \
	"$? $([ -e "$work/x.pcap" ] && echo yes || echo no) $(grep -c 'too wide' "$work/err")"
for opt in "--slid 0x1000000" "--pkey 65536" "--rc 8" "--vesw 4096" "--entropy 0x10000" \
	   "--dlid 12abc" "--slid -1"; do
	"$tool" encap $opt "$work/in.pcap" "$work/x.pcap" 2>/dev/null
	expect_eq "encap $opt: refused" "2 no" "$? $([ -e "$work/x.pcap" ] && echo yes || echo no)"
done
"$tool" encap --vesw 0xfff --slid 16777215 "$work/in.pcap" "$work/x.pcap" >/dev/null
expect_eq "encap: largest values in decimal and hex accepted" "0" "$?"
rm -f "$work/x.pcap"
head -c 5000 "$work/in.pcap" > "$work/cut.pcap"   # ends inside a record
"$tool" encap "$work/cut.pcap" "$work/x.pcap" 2>/dev/null
expect_eq "encap of a truncated capture: failed, no output" "1 no" \
	"$? $([ -e "$work/x.pcap" ] && echo yes || echo no)"
"$tool" encap "$work/missing.pcap" "$work/x.pcap" 2>/dev/null
expect_eq "encap of a missing file: failed" "1" "$?"
echo 'not a pcap' > "$work/junk.pcap"
"$tool" decap "$work/junk.pcap" "$work/x.pcap" 2>/dev/null
expect_eq "decap of a non-pcap file: failed, no output" "1 no" \
	"$? $([ -e "$work/x.pcap" ] && echo yes || echo no)"
for v in 0x0x10 $'\t5' $'\n7' ' 5' 5x 0x; do
	"$tool" encap --slid "$v" "$work/in.pcap" "$work/x.pcap" 2>/dev/null
	rc=$?
	expect_eq "encap --slid $(printf %q "$v"): not a number, refused" "2 no" \
		"$rc $([ -e "$work/x.pcap" ] && echo yes || echo no)"
done
# a write error in the middle of the stream (file size limit): failure, nothing left
( trap '' XFSZ; ulimit -f 64; "$tool" encap "$work/in.pcap" "$work/x.pcap" >/dev/null 2>&1 )
expect_eq "encap hitting a write error: failed, no partial output" "1 no" \
	"$? $([ -e "$work/x.pcap" ] && echo yes || echo no)"
# a FIFO as output is written to, not replaced; the report goes to stderr
mkfifo "$work/fifo"
ts -r "$work/fifo" -T fields -e frame.len > "$work/fifo.out" &
reader=$!
"$tool" decap "$work/in.16b.pcap" "$work/fifo" > "$work/fifo.stdout" 2>/dev/null
rc=$?
wait $reader
expect_eq "decap into a FIFO: written through, FIFO kept, report not on stdout" "0 p 400 0" \
	"$rc $(stat -c %A "$work/fifo" | cut -c1) $(wc -l < "$work/fifo.out") $(wc -c < "$work/fifo.stdout")"
leftover=$(ls "$work" | grep -c '\.tmp\.' || true)
expect_eq "no temporary files left behind" "0" "$leftover"

finish
