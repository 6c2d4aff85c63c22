"""The DCTCP dumbbell of examples/dctcp-dumbbell.toml in ns-3 (issue 64's network anchor): three
senders → one switch → one receiver, every link 10 Gb/s with 10 µs propagation, MTU 1500 (1448 B
segments), delayed ACKs every 2 segments, the switch's port to the receiver a RED queue marking
ECN at an instantaneous 65 packets (MinTh = MaxTh, QW = 1: DCTCP's step marking) in 4 MiB, DCTCP
with g = 1/16, one bulk flow per sender for 0.5 s — after ns-3's own `examples/tcp/dctcp-example.cc`.

    python benches/ns3_dumbbell.py      # needs the `ns3` wheel (`pip install ns3`: 3.44)

Prints one JSON line: the CPU seconds of `Simulator::Run` alone (the bindings' import and the
set-up are left out, as NeSt's run.json leaves out its own), the packets ns-3 received at the
receiver, and the goodput, so a reader can check both ran the same network.
"""

from __future__ import annotations

import json
import time

DURATION_S = 0.5
SENDERS = 3


def main() -> None:
    t_import = time.process_time()
    from ns import ns  # the cppyy bindings: seconds of JIT before anything runs

    t_import = time.process_time() - t_import
    ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", ns.StringValue("ns3::TcpDctcp"))
    ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(1448))
    ns.Config.SetDefault("ns3::TcpSocket::DelAckCount", ns.UintegerValue(2))
    ns.Config.SetDefault("ns3::TcpSocket::SndBufSize", ns.UintegerValue(1 << 24))
    ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(1 << 24))
    ns.Config.SetDefault("ns3::TcpDctcp::DctcpShiftG", ns.DoubleValue(1.0 / 16))
    ns.Config.SetDefault("ns3::RedQueueDisc::UseEcn", ns.BooleanValue(True))
    ns.Config.SetDefault("ns3::RedQueueDisc::UseHardDrop", ns.BooleanValue(False))
    ns.Config.SetDefault("ns3::RedQueueDisc::MeanPktSize", ns.UintegerValue(1500))
    ns.Config.SetDefault("ns3::RedQueueDisc::QW", ns.DoubleValue(1.0))
    ns.Config.SetDefault("ns3::RedQueueDisc::MinTh", ns.DoubleValue(65))
    ns.Config.SetDefault("ns3::RedQueueDisc::MaxTh", ns.DoubleValue(65))
    ns.Config.SetDefault("ns3::RedQueueDisc::MaxSize", ns.QueueSizeValue(ns.QueueSize("2796p")))  # 4 MiB of 1500 B

    senders, switch, receiver = ns.NodeContainer(), ns.NodeContainer(), ns.NodeContainer()
    senders.Create(SENDERS)
    switch.Create(1)
    receiver.Create(1)
    p2p = ns.PointToPointHelper()
    p2p.SetDeviceAttribute("DataRate", ns.StringValue("10Gbps"))
    p2p.SetChannelAttribute("Delay", ns.StringValue("10us"))
    p2p.SetQueue("ns3::DropTailQueue", "MaxSize", ns.QueueSizeValue(ns.QueueSize("10p")))
    stack = ns.InternetStackHelper()
    stack.InstallAll()
    red = ns.TrafficControlHelper()
    red.SetRootQueueDisc("ns3::RedQueueDisc", "LinkBandwidth", ns.StringValue("10Gbps"),
                         "LinkDelay", ns.StringValue("10us"))
    address = ns.Ipv4AddressHelper()
    sink_addr = None
    for i in range(SENDERS):
        devs = p2p.Install(senders.Get(i), switch.Get(0))
        red.Install(devs)
        address.SetBase(ns.Ipv4Address(f"10.1.{i + 1}.0"), ns.Ipv4Mask("255.255.255.0"))
        address.Assign(devs)
    devs = p2p.Install(switch.Get(0), receiver.Get(0))
    red.Install(devs)
    address.SetBase(ns.Ipv4Address("10.2.1.0"), ns.Ipv4Mask("255.255.255.0"))
    sink_addr = address.Assign(devs).GetAddress(1)
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

    port = 5000
    sink_helper = ns.PacketSinkHelper("ns3::TcpSocketFactory",
                                      ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo())
    sinks = sink_helper.Install(receiver.Get(0))
    sinks.Start(ns.Seconds(0))
    for i in range(SENDERS):
        bulk = ns.BulkSendHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(sink_addr, port).ConvertTo())
        bulk.SetAttribute("MaxBytes", ns.UintegerValue(0))
        bulk.SetAttribute("SendSize", ns.UintegerValue(1448 * 16))
        apps = bulk.Install(senders.Get(i))
        apps.Start(ns.Seconds(0))
        apps.Stop(ns.Seconds(DURATION_S))
    ns.Simulator.Stop(ns.Seconds(DURATION_S))

    cpu0 = time.process_time()
    ns.Simulator.Run()
    run_cpu = time.process_time() - cpu0
    rx = ns.DynamicCast[ns.PacketSink](sinks.Get(0)).GetTotalRx()
    ns.Simulator.Destroy()
    print(json.dumps({"simulator": "ns-3 3.44", "run_cpu_s": round(run_cpu, 4), "import_cpu_s": round(t_import, 2),
                      "rx_bytes": int(rx), "goodput_gbps": round(rx * 8 / DURATION_S / 1e9, 3)}))


if __name__ == "__main__":
    main()
