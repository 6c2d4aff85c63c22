"""A scenario at device and fabric scale, printed as TOML: a k-ary fat-tree at 100 Gb/s, stock
MQSim drives on NVMe-oF storage servers (PER of them each, on the first hosts), and initiators
on the next hosts, each with a Poisson workload (2 K IOPS, 70 % reads) to one drive.

    python benches/scale.py K DRIVES PER INITIATORS [DURATION] > scale.toml
    nestsim run scale.toml -q          # or: cargo run --release -p nest-bench -- run scale.toml

BENCHMARKS.md (issue 24) records `28 10000 10 4000 1ms`: 10,000 drives behind 4,000 hosts.
"""

import sys


def scenario(k: int, drives: int, per: int, initiators: int, duration: str = "5ms") -> str:
    hosts = k ** 3 // 4
    servers = -(-drives // per)
    if servers + initiators > hosts:
        raise SystemExit(f"{servers} servers + {initiators} initiators > the {hosts} hosts of a k = {k} fat-tree")
    out = ["schema = 1", 'name = "scale"', "[run]", "seed = 1", f'duration = "{duration}"', 'warmup = "0ms"',
           "[output]", "requests = false", "timeseries = false",
           "[network]", 'topology = "fat_tree"', f"k = {k}", 'link_rate = "100Gbps"', 'link_delay = "1us"',
           "[nvmeof]", 'transport = "dctcp"']
    for i in range(drives):
        out += ["[[device]]", f'name = "d{i}"', 'kind = "ssd"', 'preset = "mqsim-default"', f'server = "h{i // per}"']
    for j in range(initiators):
        h = servers + j
        # Spread over the drives (7919 is prime, so every drive is reached once before any twice).
        out += ["[[host]]", f'name = "h{h}"',
                "[[workload]]", f'name = "w{j}"', f'host = "h{h}"', f'device = "d{(j * 7919) % drives}"',
                'arrival = { kind = "poisson", rate_iops = 2000 }', "read_fraction = 0.7"]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    if len(sys.argv) not in (5, 6):
        raise SystemExit(__doc__)
    print(scenario(*(int(x) for x in sys.argv[1:5]), *sys.argv[5:6]), end="")
