-- SPDX-License-Identifier: BSD-3-Clause
-- Copyright(c) 2026 omniplane authors
--
-- Wireshark/tshark dissector for OPA 16B packets captured as linktype 147
-- (USER0), as opa16b-pcap writes them. VNIC packets (L4 0x78) hand their
-- Ethernet frame to the Ethernet dissector.
--   tshark -X lua_script:opa16b.lua -r vnic.pcap -T fields -e opa16b.dlid ...

local p = Proto("opa16b", "OPA 16B")
local F = {
	slid = ProtoField.uint32("opa16b.slid", "SLID", base.HEX),
	dlid = ProtoField.uint32("opa16b.dlid", "DLID", base.HEX),
	len = ProtoField.uint16("opa16b.len", "Length (QWs)", base.DEC),
	becn = ProtoField.uint8("opa16b.becn", "BECN", base.DEC),
	fecn = ProtoField.uint8("opa16b.fecn", "FECN", base.DEC),
	sc = ProtoField.uint8("opa16b.sc", "SC", base.DEC),
	rc = ProtoField.uint8("opa16b.rc", "RC", base.DEC),
	l2 = ProtoField.uint8("opa16b.l2", "L2", base.DEC),
	lt = ProtoField.uint8("opa16b.lt", "LT", base.DEC),
	l4 = ProtoField.uint8("opa16b.l4", "L4", base.HEX),
	pkey = ProtoField.uint16("opa16b.pkey", "PKEY", base.HEX),
	entropy = ProtoField.uint16("opa16b.entropy", "Entropy", base.HEX),
	veswid = ProtoField.uint16("opa16b.veswid", "vesw id", base.HEX),
	pad = ProtoField.uint8("opa16b.pad", "Pad", base.DEC),
	icrc = ProtoField.uint32("opa16b.icrc", "ICRC", base.HEX),
}
p.fields = { F.slid, F.dlid, F.len, F.becn, F.fecn, F.sc, F.rc, F.l2, F.lt, F.l4,
	F.pkey, F.entropy, F.veswid, F.pad, F.icrc }

local band, rshift, lshift = bit32.band, bit32.rshift, bit32.lshift
local eth = Dissector.get("eth_withoutfcs")

function p.dissector(buf, pinfo, tree)
	local n = buf:len()
	if n < 25 then return 0 end
	local dw0, dw1, dw2 = buf(0, 4):le_uint(), buf(4, 4):le_uint(), buf(8, 4):le_uint()
	local dw3, dw4 = buf(12, 4):le_uint(), buf(16, 4):le_uint()
	local l4 = band(dw2, 0xFF)
	local pad = band(buf(n - 1, 1):uint(), 0x3F)
	local t = tree:add(p, buf(0, 20))
	pinfo.cols.protocol = "OPA16B"
	t:add(F.slid, buf(0, 4), band(dw0, 0xFFFFF) + lshift(band(rshift(dw2, 8), 0xF), 20))
	t:add(F.dlid, buf(4, 4), band(dw1, 0xFFFFF) + lshift(band(rshift(dw2, 12), 0xF), 20))
	t:add(F.len, buf(0, 4), band(rshift(dw0, 20), 0x7FF))
	t:add(F.becn, buf(0, 4), rshift(dw0, 31))
	t:add(F.sc, buf(4, 4), band(rshift(dw1, 20), 0x1F))
	t:add(F.rc, buf(4, 4), band(rshift(dw1, 25), 0x7))
	t:add(F.fecn, buf(4, 4), band(rshift(dw1, 28), 0x1))
	t:add(F.l2, buf(4, 4), band(rshift(dw1, 29), 0x3))
	t:add(F.lt, buf(4, 4), rshift(dw1, 31))
	t:add(F.l4, buf(8, 1), l4)
	t:add(F.pkey, buf(10, 2), rshift(dw2, 16))
	t:add(F.entropy, buf(12, 2), band(dw3, 0xFFFF))
	if l4 == 0x78 then
		t:add(F.veswid, buf(18, 2), band(rshift(dw4, 16), 0xFFF))
	end
	t:add(F.pad, buf(n - 1, 1), pad)
	t:add(F.icrc, buf(n - 5, 4), buf(n - 5, 4):le_uint())
	if l4 == 0x78 and n >= 25 + pad then
		eth:call(buf(20, n - 25 - pad):tvb(), pinfo, tree)
	end
	return n
end

DissectorTable.get("wtap_encap"):add(wtap_encaps.USER0, p)
