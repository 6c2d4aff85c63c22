"""A fabric at scale, printed as TOML: a k-ary fat-tree (10 Gb/s, 1 µs links, DCTCP step marking)
with FLOWS long-lived DCTCP flows between hosts drawn at random (a fixed seed), no storage.
What issue 24's fabric-scale figure is measured on (BENCHMARKS.md):

    python benches/fabric.py 16 512 20ms > k16.toml
    cargo run --release -p nest-bench -- run k16.toml     # CPU-s, events and packet-hops per CPU-s
"""

import random
import sys


def scenario(k: int, flows: int, duration: str = "20ms", seed: int = 1) -> str:
    hosts = k ** 3 // 4
    rng = random.Random(seed)
    out = ["schema = 1", f'name = "fabric-k{k}-{flows}"', "[run]", "seed = 1", f'duration = "{duration}"', 'warmup = "0ms"',
           "[output]", "requests = false", "timeseries = false",
           "[network]", 'topology = "fat_tree"', f"k = {k}", 'link_rate = "10Gbps"', 'link_delay = "1us"',
           "[network.switch]", 'buffer = "4MiB"', 'ecn = "step"', "ecn_k = 65"]
    for i in range(flows):
        src = rng.randrange(hosts)
        dst = rng.randrange(hosts - 1)
        dst += dst >= src  # never to itself
        out += ["[[flow]]", f'name = "f{i}"', f'src = "h{src}"', f'dst = "h{dst}"', 'class = "best_effort"', 'transport = "dctcp"']
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        raise SystemExit(__doc__)
    print(scenario(int(sys.argv[1]), int(sys.argv[2]), *sys.argv[3:4]), end="")
