#!/usr/bin/env python3
"""The workloads of docs/mqsim.md's fourth blind round (twentieth session), as they were written
before any run: MQSim ssdconfig/workload pairs in OUT (default out/blind4), each pair then run by

    nestsim crosscheck mqsim OUT/<drive>.xml OUT/<workload>.xml --seeds 3

Pairs: w1, w2, w4, w5, w9, w10 on stock.xml; w3 on mlc16.xml; w6 on stock_pwcd.xml; w7 on
stock_ooo.xml; w8 on tlc_pre.xml; w11 on tlc_small.xml; w12 on mlc_small.xml; w13, gcheavy and
gcmix on stock64.xml; hc60 on slc.xml (--seeds 12: MQSim finishes few); v1–v4 (w9's variants) on
stock.xml.
"""
import os
import re
import sys
from pathlib import Path

SHARED = Path(os.environ.get("NEST_SHARED", Path(__file__).resolve().parent.parent.parent / "shared"))
STOCK = (SHARED / "mqsim" / "ssdconfig.xml").read_text()
OUT = Path(sys.argv[1] if len(sys.argv) > 1 else "out/blind4")
OUT.mkdir(parents=True, exist_ok=True)

def ssd(name, **kv):
    t = STOCK
    for k, v in kv.items():
        t, n = re.subn(f"<{k}>[^<]*</{k}>", f"<{k}>{v}</{k}>", t)
        assert n == 1, k
    (OUT / f"{name}.xml").write_text(t)

def flow(cls="HIGH", cache="WRITE_CACHE", occ=0, ws=100, gen="QUEUE_DEPTH", rd=70, dist="RANDOM_UNIFORM",
         hot=0, aligned="true", align=8, sizedist="FIXED", size=8, var=0, seed=12345, qd=16, bw=0, n=20000,
         chans="0,1,2,3,4,5,6,7", chips="0,1,2,3", dies="0,1", planes="0,1"):
    return f"""		<IO_Flow_Parameter_Set_Synthetic>
			<Priority_Class>{cls}</Priority_Class>
			<Device_Level_Data_Caching_Mode>{cache}</Device_Level_Data_Caching_Mode>
			<Channel_IDs>{chans}</Channel_IDs>
			<Chip_IDs>{chips}</Chip_IDs>
			<Die_IDs>{dies}</Die_IDs>
			<Plane_IDs>{planes}</Plane_IDs>
			<Initial_Occupancy_Percentage>{occ}</Initial_Occupancy_Percentage>
			<Working_Set_Percentage>{ws}</Working_Set_Percentage>
			<Synthetic_Generator_Type>{gen}</Synthetic_Generator_Type>
			<Read_Percentage>{rd}</Read_Percentage>
			<Address_Distribution>{dist}</Address_Distribution>
			<Percentage_of_Hot_Region>{hot}</Percentage_of_Hot_Region>
			<Generated_Aligned_Addresses>{aligned}</Generated_Aligned_Addresses>
			<Address_Alignment_Unit>{align}</Address_Alignment_Unit>
			<Request_Size_Distribution>{sizedist}</Request_Size_Distribution>
			<Average_Request_Size>{size}</Average_Request_Size>
			<Variance_Request_Size>{var}</Variance_Request_Size>
			<Seed>{seed}</Seed>
			<Average_No_of_Reqs_in_Queue>{qd}</Average_No_of_Reqs_in_Queue>
			<Bandwidth>{bw}</Bandwidth>
			<Stop_Time>0</Stop_Time>
			<Total_Requests_To_Generate>{n}</Total_Requests_To_Generate>
		</IO_Flow_Parameter_Set_Synthetic>
"""

def wl(name, *flows):
    (OUT / f"{name}.xml").write_text('<?xml version="1.0" encoding="us-ascii"?>\n<MQSim_IO_Scenarios>\n\t<IO_Scenario>\n'
                                     + "".join(flows) + "\t</IO_Scenario>\n</MQSim_IO_Scenarios>\n")

ssd("stock")
# an MLC drive of our own: 4 ch x 2 chips x 2 dies x 2 planes x 1024 blocks x 128 pages of 16 KiB
ssd("mlc16", Flash_Channel_Count=4, Chip_No_Per_Channel=2, Channel_Transfer_Rate=533, Die_No_Per_Chip=2,
    Plane_No_Per_Die=2, Block_No_Per_Plane=1024, Page_No_Per_Block=128, Page_Capacity=16384,
    Page_Read_Latency_LSB=60000, Page_Read_Latency_CSB=60000, Page_Read_Latency_MSB=90000,
    Page_Program_Latency_LSB=500000, Page_Program_Latency_CSB=500000, Page_Program_Latency_MSB=1300000,
    Block_Erase_Latency=3000000, Data_Cache_Capacity=134217728, CMT_Capacity=524288)
# stock drive with a small CMT and a different plane order
ssd("stock_pwcd", CMT_Capacity=262144, Plane_Allocation_Scheme="PWCD")
wl("w1", flow(rd=80, aligned="false", align=1, occ=50, qd=128, n=30000))
wl("w2", flow(cls="HIGH", dist="STREAMING", rd=100, size=64, qd=8, n=10000, occ=60),
   flow(cls="MEDIUM", dist="RANDOM_HOTCOLD", hot=30, rd=0, size=8, qd=16, n=20000, occ=60, seed=777))
wl("w3", flow(rd=60, size=32, align=32, qd=24, occ=40, n=30000))
wl("w4", flow(rd=0, size=128, align=128, qd=4, occ=90, n=10000))
wl("w5", flow(ws=20, sizedist="NORMAL", size=16, var=4, rd=70, qd=32, n=20000, occ=30))
wl("w6", flow(rd=90, size=16, align=16, qd=16, n=20000, occ=80))
# --- second batch (written after the first five passed; w3 fixed: the drive has 2 chips a channel)
wl("w3", flow(rd=60, size=32, align=32, qd=24, occ=40, n=30000, chans="0,1,2,3", chips="0,1"))
ssd("tlc_pre", Flash_Technology="TLC", Enabled_Preconditioning="true", Flash_Channel_Count=4, Chip_No_Per_Channel=2,
    Die_No_Per_Chip=1, Plane_No_Per_Die=2, Block_No_Per_Plane=512, Page_No_Per_Block=192, Page_Capacity=16384,
    Page_Read_Latency_LSB=50000, Page_Read_Latency_CSB=75000, Page_Read_Latency_MSB=100000,
    Page_Program_Latency_LSB=500000, Page_Program_Latency_CSB=1500000, Page_Program_Latency_MSB=3000000,
    Block_Erase_Latency=5000000, Channel_Transfer_Rate=800, Data_Cache_Capacity=67108864, CMT_Capacity=1048576)
ssd("stock_ooo", Transaction_Scheduling_Policy="OUT_OF_ORDER")
wl("w7", flow(cls="URGENT", rd=50, size=8, qd=8, n=20000, occ=60, chans="0,1,2,3,4,5,6,7", planes="0"),
   flow(cls="LOW", rd=20, size=16, align=16, qd=8, n=15000, occ=60, planes="1", seed=999))
wl("w8", flow(rd=50, size=16, align=16, qd=16, occ=60, n=40000, chans="0,1,2,3", chips="0,1", dies="0"))
wl("w9", flow(gen="BANDWIDTH", rd=50, size=512, align=512, bw=400000000, n=8000, occ=20))
wl("w10", flow(rd=100, dist="STREAMING", size=2048, align=2048, qd=1, n=3000, occ=50))
# --- third batch: GC (written after the second batch passed with no GC anywhere)
ssd("tlc_small", Flash_Technology="TLC", Enabled_Preconditioning="true", Flash_Channel_Count=4, Chip_No_Per_Channel=2,
    Die_No_Per_Chip=1, Plane_No_Per_Die=2, Block_No_Per_Plane=256, Page_No_Per_Block=192, Page_Capacity=16384,
    Page_Read_Latency_LSB=50000, Page_Read_Latency_CSB=75000, Page_Read_Latency_MSB=100000,
    Page_Program_Latency_LSB=500000, Page_Program_Latency_CSB=1500000, Page_Program_Latency_MSB=3000000,
    Block_Erase_Latency=5000000, Channel_Transfer_Rate=800, Data_Cache_Capacity=67108864, CMT_Capacity=1048576)
ssd("mlc_small", Enabled_Preconditioning="true", Flash_Channel_Count=4, Chip_No_Per_Channel=2, Channel_Transfer_Rate=533,
    Die_No_Per_Chip=2, Plane_No_Per_Die=2, Block_No_Per_Plane=128, Page_No_Per_Block=128, Page_Capacity=16384,
    Page_Read_Latency_LSB=60000, Page_Read_Latency_CSB=60000, Page_Read_Latency_MSB=90000,
    Page_Program_Latency_LSB=500000, Page_Program_Latency_CSB=500000, Page_Program_Latency_MSB=1300000,
    Block_Erase_Latency=3000000, Data_Cache_Capacity=134217728, CMT_Capacity=524288)
wl("w11", flow(rd=20, size=16, align=16, qd=16, occ=80, n=150000, chans="0,1,2,3", chips="0,1", dies="0"))
wl("w12", flow(rd=0, size=32, align=32, qd=8, occ=70, n=60000, chans="0,1,2,3", chips="0,1"))
# --- fourth batch: GC on an empty drive, where MQSim runs GC to the end (w11, w12: MQSim failed 24 of 24 seeds)
ssd("stock64", Block_No_Per_Plane=64)
wl("w13", flow(rd=20, size=32, align=32, qd=32, occ=0, n=2000000))
# --- w9's mapping reads (MQSim 15.4 k, NeSt 9.3 k): variants
wl("v1", flow(rd=50, size=512, align=512, qd=4, n=8000, occ=20))
wl("v2", flow(gen="BANDWIDTH", rd=100, size=512, align=512, bw=400000000, n=8000, occ=20))
wl("v3", flow(gen="BANDWIDTH", rd=0, size=512, align=512, bw=400000000, n=8000, occ=20))
wl("v4", flow(gen="BANDWIDTH", rd=50, size=128, align=128, bw=400000000, n=16000, occ=20))
# --- the documented GC-heavy run (empty 64-block drive, 2.5 M random 8 KiB writes at QD 64), re-checked
wl("gcheavy", flow(rd=0, size=16, align=16, qd=64, occ=0, n=2500000))
# --- an SLC drive like the fourteenth session's (its erase time and CMT not recorded: 2 ms, 2 MiB here), preconditioned
ssd("slc", Flash_Technology="SLC", Enabled_Preconditioning="true", Flash_Channel_Count=4, Chip_No_Per_Channel=2,
    Die_No_Per_Chip=1, Plane_No_Per_Die=4, Block_No_Per_Plane=512, Page_No_Per_Block=128, Page_Capacity=4096,
    Page_Read_Latency_LSB=25000, Page_Read_Latency_CSB=25000, Page_Read_Latency_MSB=25000,
    Page_Program_Latency_LSB=250000, Page_Program_Latency_CSB=250000, Page_Program_Latency_MSB=250000,
    Block_Erase_Latency=2000000, Channel_Transfer_Rate=400, Data_Cache_Capacity=33554432)
wl("hc60", flow(rd=70, size=32, align=32, qd=8, occ=60, n=40000, dist="RANDOM_HOTCOLD", hot=20, chans="0,1,2,3", chips="0,1", dies="0", planes="0,1,2,3"))
# --- fifth batch: reads beside GC on the 64-block drive, written after the GC-heavy re-check
wl("gcmix", flow(rd=30, size=16, align=16, qd=32, occ=0, n=3500000))
