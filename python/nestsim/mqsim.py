"""Import MQSim configurations: ``ssdconfig.xml`` (device) + ``workload.xml`` (I/O scenarios).

Each ``<IO_Scenario>`` becomes one NeSt scenario (MQSim rebuilds host and device per scenario).
The mapping, element by element, is in docs/mqsim.md. Elements NeSt does not model, and MQSim
quirks NeSt does not copy, produce warnings that name the element and its line; malformed XML,
unknown enumeration values, bad numbers and missing trace files raise :class:`MqsimError`
(``file:line: element: what was expected``), which the CLI turns into exit status 2.
"""

from __future__ import annotations

import difflib
import json
import math
import re
import xml.parsers.expat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple


class MqsimError(ValueError):
    """A malformed or unsupported MQSim file (the message names file, line and element)."""


@dataclass
class Node:
    tag: str
    line: int
    text: str = ""
    children: List["Node"] = field(default_factory=list)

    def child(self, tag: str) -> Optional["Node"]:
        for c in self.children:
            if c.tag == tag:
                return c
        return None


def parse_xml(path: Path) -> Node:
    """A small element tree with line numbers (expat)."""
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise MqsimError(f"{path}: cannot read: {e.strerror}") from None
    root = Node("#document", 0)
    stack = [root]
    # Each open element's character data as pieces, joined once at its end: `text += piece` was
    # quadratic (1 MB of newlines took 44 s: issue 63, S11).
    pieces: List[List[str]] = [[]]
    p = xml.parsers.expat.ParserCreate()

    def start(tag, _attrs):
        n = Node(tag, p.CurrentLineNumber)
        stack[-1].children.append(n)
        stack.append(n)
        pieces.append([])

    def end(_tag):
        n = stack.pop()
        n.text = "".join(pieces.pop()).strip()

    def chars(s):
        pieces[-1].append(s)

    def doctype(name, *_):
        # MQSim's files have no DTD; one could declare entities that expand exponentially
        # ("billion laughs": issue 63, S11), so none is accepted.
        raise MqsimError(f"{path}:{p.CurrentLineNumber}: a DOCTYPE (DTD) is not accepted in MQSim files")

    p.StartElementHandler, p.EndElementHandler, p.CharacterDataHandler = start, end, chars
    p.StartDoctypeDeclHandler = doctype
    try:
        p.Parse(data, True)
    except xml.parsers.expat.ExpatError as e:
        raise MqsimError(f"{path}:{e.lineno}: malformed XML: {xml.parsers.expat.ErrorString(e.code)} (column {e.offset})") from None
    except (LookupError, ValueError) as e:
        # An unknown encoding in the XML declaration (found by fuzzing: expat raises LookupError).
        raise MqsimError(f"{path}:1: cannot decode the document: {e}") from None
    if not root.children:
        raise MqsimError(f"{path}:1: empty document")
    return root.children[0]


class _Reader:
    """Reads the children of one parameter-set element, remembering which were used."""

    def __init__(self, path: Path, node: Node, warnings: List[str]):
        self.path, self.node, self.warnings = path, node, warnings
        self.used = set()

    def _get(self, tag: str) -> Optional[Node]:
        self.used.add(tag)
        return self.node.child(tag)

    def err(self, n: Node, msg: str) -> MqsimError:
        return MqsimError(f"{self.path}:{n.line}: {n.tag}: {msg}")

    def warn(self, tag: str, msg: str) -> None:
        n = self.node.child(tag)
        line = n.line if n else self.node.line
        self.warnings.append(f"{self.path.name}:{line}: {tag}: {msg}")

    def has(self, tag: str) -> bool:
        return self.node.child(tag) is not None

    def text(self, tag: str, default: Optional[str] = None) -> Optional[str]:
        n = self._get(tag)
        return n.text if n is not None else default

    def num(self, tag: str, default=None, kind=float, lo=None, hi=None):
        n = self._get(tag)
        if n is None:
            return default
        try:
            v = kind(n.text)
        except ValueError:
            raise self.err(n, f"expected {'an integer' if kind is int else 'a number'}, got '{n.text}'") from None
        if not math.isfinite(v):
            raise self.err(n, f"expected a finite number, got '{n.text}'")
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            raise self.err(n, f"expected a value in [{lo}, {hi}], got {n.text}")
        return v

    def flag(self, tag: str, default: Optional[bool] = None) -> Optional[bool]:
        n = self._get(tag)
        if n is None:
            return default
        t = n.text.lower()
        if t not in ("true", "false"):
            raise self.err(n, f"expected true or false, got '{n.text}'")
        return t == "true"

    def enum(self, tag: str, choices: Dict[str, object], default=None):
        n = self._get(tag)
        if n is None:
            return default
        if n.text not in choices:
            raise self.err(n, f"expected one of {', '.join(choices)}, got '{n.text}'")
        return choices[n.text]

    def ids(self, tag: str) -> Optional[List[int]]:
        n = self._get(tag)
        if n is None:
            return None
        try:
            return [int(x) for x in n.text.replace(" ", "").split(",") if x]
        except ValueError:
            raise self.err(n, f"expected a comma-separated list of integers, got '{n.text}'") from None

    def ignore(self, tag: str, why: str) -> None:
        if self.has(tag):
            self.used.add(tag)
            self.warn(tag, why)

    def unknown(self) -> None:
        """Elements nobody asked for: a warning each — or an error when one is a near miss of an
        element this set reads and the file lacks (a misspelling would otherwise run silently on
        that element's default)."""
        present = {c.tag for c in self.node.children}
        missing = sorted(t for t in self.used if t not in present)
        for c in self.node.children:
            if c.tag in self.used:
                continue
            near = difflib.get_close_matches(c.tag, missing, n=1, cutoff=0.85)
            if near:
                raise self.err(c, f"not an MQSim element; did you mean `{near[0]}`? (without it, {near[0]} takes its default)")
            self.warnings.append(f"{self.path.name}:{c.line}: {c.tag}: not an MQSim element NeSt knows; ignored")


def _ns(v: float) -> str:
    return f"{int(round(v))}ns"


_CELL = {"SLC": "slc", "MLC": "mlc", "TLC": "tlc", "QLC": "qlc"}
_VICTIM = {"GREEDY": "greedy", "RGA": "rga", "RANDOM": "random", "RANDOM_P": "random", "RANDOM_PP": "random", "FIFO": "fifo"}


def device_from_ssdconfig(path: Path, warnings: List[str]) -> Tuple[dict, dict]:
    """(NeSt ssd device table, run settings) from an MQSim ssdconfig.xml."""
    path = Path(path)
    root = parse_xml(path)
    if root.tag != "Execution_Parameter_Set":
        raise MqsimError(f"{path}:{root.line}: {root.tag}: expected the root element Execution_Parameter_Set")
    run: dict = {}
    dev: dict = {"name": "ssd", "kind": "ssd", "preset": "mqsim-default"}
    host_node = root.child("Host_Parameter_Set")
    if host_node is not None:
        h = _Reader(path, host_node, warnings)
        hi: dict = {}
        bw = h.num("PCIe_Lane_Bandwidth", lo=1e-6)
        if bw is not None:
            hi["lane_bandwidth"] = f"{bw}GB/s"
        lanes = h.num("PCIe_Lane_Count", kind=int, lo=1, hi=64)
        if lanes is not None:
            hi["pcie_lanes"] = lanes
        dev["host_interface"] = hi
        h.ignore("SATA_Processing_Delay", "SATA is not modelled (NVMe only); ignored")
        logging = h.flag("Enable_ResponseTime_Logging", False)
        period = h.num("ResponseTime_Logging_Period_Length", lo=1)
        if period is not None:
            run["interval"] = _ns(period)
            if not logging:
                h.warn("Enable_ResponseTime_Logging", "NeSt always writes the time series; the logging period sets its interval")
        h.unknown()
    dn = root.child("Device_Parameter_Set")
    if dn is None:
        raise MqsimError(f"{path}:{root.line}: {root.tag}: missing Device_Parameter_Set")
    d = _Reader(path, dn, warnings)
    seed = d.num("Seed", kind=int, lo=0)
    if seed is not None:
        run["seed"] = seed
    precondition = d.flag("Enabled_Preconditioning", False)
    if d.enum("Memory_Type", {"FLASH": "flash"}, "flash") != "flash":
        raise d.err(dn, "only FLASH memory is supported")
    if d.enum("HostInterface_Type", {"NVME": "nvme", "SATA": "sata"}, "nvme") == "sata":
        d.warn("HostInterface_Type", "SATA is not modelled; the drive is simulated behind NVMe")
    nvme: dict = {"arbitration": "rr"}
    qd = d.num("IO_Queue_Depth", kind=int, lo=1)
    if qd is not None:
        nvme["sq_depth"] = min(qd, 65536)
    fetch = d.num("Queue_Fetch_Size", kind=int, lo=1)
    if fetch is not None:
        dev.setdefault("host_interface", {})["queue_depth"] = fetch
    dev["nvme"] = nvme
    if d.enum("Caching_Mechanism", {"ADVANCED": "advanced", "SIMPLE": "simple"}, "advanced") == "simple":
        d.warn("Caching_Mechanism", "SIMPLE caching is simulated as NeSt's (ADVANCED-like) LRU cache")
    if d.enum("Data_Cache_Sharing_Mode", {"SHARED": "shared", "EQUAL_PARTITIONING": "equal"}, "shared") == "equal":
        d.warn("Data_Cache_Sharing_Mode", "per-flow cache partitions are not modelled; the cache is shared")
    cache: dict = {}
    cap = d.num("Data_Cache_Capacity", kind=int, lo=0)
    if cap is not None:
        cache["capacity"] = f"{cap}B"
    rate = d.num("Data_Cache_DRAM_Data_Rate", kind=int, lo=1)
    if rate is not None:
        cache["dram_rate"] = rate
    burst = d.num("Data_Cache_DRAM_Data_Busrt_Size", kind=int, lo=1)
    if burst is not None:
        cache["dram_burst"] = burst
    for tag, key in (("Data_Cache_DRAM_tRCD", "t_rcd"), ("Data_Cache_DRAM_tCL", "t_cl"), ("Data_Cache_DRAM_tRP", "t_rp")):
        v = d.num(tag, lo=0)
        if v is not None:
            cache[key] = _ns(v)
    # Rows and precharge time only MQSim's row formula (model.dram_timing = "mqsim_rows", the
    # compat mode's) uses; NeSt's own access is tRCD + tCL + transfer.
    row = d.num("Data_Cache_DRAM_Row_Size", kind=int, lo=1)
    if row is not None:
        cache["dram_row"] = f"{row}B"
    dev["cache"] = cache
    if d.enum("Address_Mapping", {"PAGE_LEVEL": "page", "HYBRID": "hybrid"}, "page") == "hybrid":
        raise d.err(dn.child("Address_Mapping"), "HYBRID mapping is not supported (expected PAGE_LEVEL)")
    ftl: dict = {}
    ideal = d.flag("Ideal_Mapping_Table", False)
    cmt = d.num("CMT_Capacity", kind=int, lo=1)
    if ideal:
        ftl["cmt"] = "all"
    elif cmt is not None:
        ftl["cmt"] = f"{cmt}B"
    if d.text("CMT_Sharing_Mode", "SHARED") != "SHARED":
        d.warn("CMT_Sharing_Mode", "per-flow CMT partitions are not modelled; the CMT is shared")
    alloc = d.text("Plane_Allocation_Scheme")
    if alloc is not None:
        ftl["allocation"] = alloc
    sched = d.enum("Transaction_Scheduling_Policy", {"OUT_OF_ORDER": False, "PRIORITY_OUT_OF_ORDER": True}, False)
    # MQSim's priority scheduler: urgent strict, High:Medium:Low weighted 4:2:1 at the chips.
    dev["scheduler"] = {"device_qos": sched, "weights": [4, 2, 1]}
    for tag, key, lo, hi in (("Overprovisioning_Ratio", "overprovisioning", 0.0, 0.9), ("GC_Exec_Threshold", "gc_soft", 0.0, 0.5), ("GC_Hard_Threshold", "gc_hard", 0.0, 0.5)):
        v = d.num(tag, lo=lo, hi=hi)
        if v is not None:
            ftl[key] = v
    victim = d.enum("GC_Block_Selection_Policy", {k: k for k in _VICTIM})
    if victim is not None:
        ftl["gc_policy"] = _VICTIM[victim]
        if victim in ("RANDOM_P", "RANDOM_PP"):
            d.warn("GC_Block_Selection_Policy", f"{victim} is simulated as RANDOM")
    for tag, key in (("Use_Copyback_for_GC", "copyback"), ("Preemptible_GC_Enabled", "gc_preemptible"), ("Dynamic_Wearleveling_Enabled", "dynamic_wear_levelling")):
        v = d.flag(tag)
        if v is not None:
            ftl[key] = v
    swl = d.flag("Static_Wearleveling_Enabled")
    swt = d.num("Static_Wearleveling_Threshold", kind=int, lo=1)
    if swl is not None or swt is not None:
        ftl["static_wear_levelling"] = (swt or 100) if swl else 0
        d.warn("Static_Wearleveling_Enabled", "MQSim ignores its wear-levelling settings; NeSt applies them")
    for tag, key in (("Preferred_suspend_erase_time_for_read", "suspend_erase_min_remaining_read"), ("Preferred_suspend_erase_time_for_write", "suspend_erase_min_remaining_write"), ("Preferred_suspend_write_time_for_read", "suspend_program_min_remaining")):
        v = d.num(tag, lo=0)
        if v is not None:
            dev["scheduler"][key] = _ns(v)
    dev["ftl"] = ftl
    geometry: dict = {}
    flash: dict = {}
    for tag, key in (("Flash_Channel_Count", "channels"), ("Chip_No_Per_Channel", "chips_per_channel")):
        v = d.num(tag, kind=int, lo=1, hi=1024)
        if v is not None:
            geometry[key] = v
    w = d.num("Flash_Channel_Width", kind=int, lo=1, hi=64)
    if w is not None:
        flash["channel_width"] = w
    r = d.num("Channel_Transfer_Rate", kind=int, lo=1)
    if r is not None:
        flash["channel_rate"] = r
    d.ignore("Flash_Comm_Protocol", "the ONFI protocol's command phases are one fixed command time per die operation")
    fp = dn.child("Flash_Parameter_Set")
    d.used.add("Flash_Parameter_Set")
    if fp is not None:
        f = _Reader(path, fp, warnings)
        cell = f.enum("Flash_Technology", _CELL)
        if cell is not None:
            flash["cell"] = cell
        bits = {"slc": 1, "mlc": 2, "tlc": 3, "qlc": 4}.get(cell or "mlc", 2)
        for kind, key in (("Read", "read"), ("Program", "program")):
            vals = [f.num(f"Page_{kind}_Latency_{t}", lo=1) for t in ("LSB", "CSB", "MSB")]
            got = [v for v in vals if v is not None]
            if got:
                # MQSim lists LSB, CSB, MSB; for MLC the two page types are LSB and MSB.
                order = {1: [0], 2: [0, 2], 3: [0, 1, 2], 4: [0, 1, 2, 2]}[bits]
                flash[key] = [_ns(vals[i] if vals[i] is not None else got[-1]) for i in order]
        e = f.num("Block_Erase_Latency", lo=1)
        if e is not None:
            flash["erase"] = _ns(e)
        f.ignore("Block_PE_Cycles_Limit", "endurance (block wear-out) is not modelled; erase counts are reported")
        susp = f.enum("CMD_Suspension_Support", {"NONE": "off", "PROGRAM": "program", "ERASE": "erase", "PROGRAM_ERASE": "program_erase"})
        if susp is not None:
            dev["scheduler"]["suspend"] = susp
            if susp != "off":
                f.warn("CMD_Suspension_Support", "MQSim never triggers suspension; NeSt suspends as configured, so reads behind long erases/programs finish sooner than in MQSim")
        for tag, key in (("Suspend_Erase_Time", "suspend_erase_latency"), ("Suspend_Program_Time", "suspend_program_latency")):
            v = f.num(tag, lo=0)
            if v is not None:
                dev["scheduler"][key] = _ns(v)
        f.ignore("Page_Metadat_Capacity", "out-of-band metadata is not modelled")
        for tag, key in (("Die_No_Per_Chip", "dies_per_chip"), ("Plane_No_Per_Die", "planes_per_die"), ("Block_No_Per_Plane", "blocks_per_plane"), ("Page_No_Per_Block", "pages_per_block")):
            v = f.num(tag, kind=int, lo=1)
            if v is not None:
                geometry[key] = v
        pc = f.num("Page_Capacity", kind=int, lo=512)
        if pc is not None:
            geometry["page_size"] = f"{pc}B"
        f.unknown()
    dev["geometry"] = geometry
    dev["flash"] = flash
    if ftl.get("gc_policy") == "rga":
        # MQSim's RGA draws ⌊log2(blocks per plane)⌋ blocks (GC_and_WL_Unit_Page_Level.cpp:21);
        # the stock file's 2,048 when the file does not say.
        ftl["rga_d"] = max(1, int(geometry.get("blocks_per_plane", 2048)).bit_length() - 1)
    d.unknown()
    run["_precondition"] = precondition
    return dev, run


_PRIO = {"URGENT": "urgent", "HIGH": "high", "MEDIUM": "medium", "LOW": "low"}
_CACHE = {"WRITE_CACHE": "write", "READ_CACHE": "read", "WRITE_READ_CACHE": "write_read", "TURNED_OFF": "off"}
_TIME_UNIT = {"PICOSECOND": "ps", "NANOSECOND": "ns", "MICROSECOND": "us", "MILLISECOND": "ms", "SECOND": "s"}


_RESOURCE_TAGS = ("Channel_IDs", "Chip_IDs", "Die_IDs", "Plane_IDs")
_GEOMETRY_KEYS = ("channels", "chips_per_channel", "dies_per_chip", "planes_per_die")


def _plane_sharing(flow_ids: dict, geometry: dict) -> Optional[Tuple[List[list], List[list], Dict[tuple, int]]]:
    """Per flow, its resource ids (channels, chips, dies, planes) and its planes, and per plane
    how many flows use it; None for a geometry too large to walk (the device's own check names
    it)."""
    dims = [int(geometry[k]) for k in _GEOMETRY_KEYS]
    if math.prod(dims) > 1 << 20:
        return None
    n = len(flow_ids[_RESOURCE_TAGS[0]])
    res = [[sorted(set(flow_ids[t][i])) if flow_ids[t][i] is not None else list(range(d)) for t, d in zip(_RESOURCE_TAGS, dims)]
           for i in range(n)]
    planes = [[(c, w, d, p) for c in r[0] for w in r[1] for d in r[2] for p in r[3]] for r in res]
    sharers: Dict[tuple, int] = {}
    for flow in planes:
        for pl in flow:
            sharers[pl] = sharers.get(pl, 0) + 1
    return res, planes, sharers


def _flow_domains(flow_ids: dict, geometry: dict) -> Optional[List[Tuple[float, dict]]]:
    """Per flow, (its share of the logical space, its resources as a `model.domains` entry
    without the start) when some flow does not use the whole drive; None when every flow does.
    MQSim gives a flow each of its planes' logical pages, split evenly among the flows that
    share a plane (`src/utils/Logical_Address_Partitioning_Unit.cpp:79-145`)."""
    if all(ids is None for t in _RESOURCE_TAGS for ids in flow_ids[t]):
        return None
    walk = _plane_sharing(flow_ids, geometry)
    if walk is None:
        return None
    res, planes, sharers = walk
    dims = [int(geometry[k]) for k in _GEOMETRY_KEYS]
    if all(r == [list(range(d)) for d in dims] for r in res):
        return None
    keys = ("channels", "chips", "dies", "planes")
    return [(sum(1 / sharers[pl] for pl in flow) / math.prod(dims), dict(zip(keys, r))) for r, flow in zip(res, planes)]


def _mqsim_slices(flow_ids: dict, geometry: dict, op: float) -> Optional[List[int]]:
    """Per flow, MQSim's `end − start` of its logical slice in sectors: each of its planes gives
    blocks × pages × sectors × (1 − overprovisioning) sectors, split among the flows on the plane
    and cut to a whole number per plane (`src/utils/Logical_Address_Partitioning_Unit.cpp:135-157`);
    the slice ends one before the sum. A trace flow keeps an address up to it and takes a larger
    one modulo it (`src/host/IO_Flow_Trace_Based.cpp:49-57`), and the slices' starts place MQSim's
    page boundaries (`segment_skews`)."""
    walk = _plane_sharing(flow_ids, geometry)
    if walk is None:
        return None
    _, planes, sharers = walk
    sectors = int(geometry["blocks_per_plane"]) * int(geometry["pages_per_block"]) * (int(str(geometry["page_size"]).rstrip("B")) // 512)
    # In MQSim's order of operations: the product in integers, then (1 − op) × 1.0 / sharers in doubles.
    return [sum(int(sectors * (1.0 - op) * 1.0 / sharers[pl]) for pl in flow) - 1 for flow in planes]


def _mqsim_normal_sizes(avg: int, var: float) -> Tuple[dict, float]:
    """MQSim's NORMAL request sizes as an empirical distribution, and the share of draws it
    turns into giant requests. MQSim takes `ceil(Normal(avg, var))` sectors with the variance
    passed as the standard deviation, and a draw of 0 as 1 (`src/host/IO_Flow_Synthetic.cpp:97-103`,
    `src/utils/RandomGenerator.cpp:101-121`); a draw at or below -1 cast to `unsigned int` is a
    request of ~2^32 sectors, left out here."""
    sd = float(var)
    cdf = lambda x: 0.5 * (1 + math.erf((x - avg) / (sd * math.sqrt(2))))
    # Sizes of 1 sector up to six deviations above the mean, at most 4 GiB (2^23 sectors); a
    # wide spread is drawn in at most 4,096 bins (each its middle size), a narrow one exactly.
    hi = math.ceil(min(avg + 6 * sd, float(1 << 23)))
    step = max(1, math.ceil(hi / 4096))
    values, weights = [], []
    for a in range(1, hi + 1, step):
        b = min(a + step - 1, hi)
        wgt = cdf(b) - (cdf(-1) if a == 1 else cdf(a - 1))
        if wgt > 1e-12:
            values.append(f"{(a + b) // 2 * 512}B")
            weights.append(wgt)
    if not values:  # every draw below -1 sector: nothing MQSim could run either
        values, weights = ["512B"], [1.0]
    return {"dist": "empirical", "values": values, "weights": weights}, cdf(-1)


def _flow_common(r: _Reader, flow_ids: dict, geometry: dict) -> dict:
    prio = r.enum("Priority_Class", _PRIO, "high")
    mode = r.enum("Device_Level_Data_Caching_Mode", _CACHE)
    for tag, key in zip(_RESOURCE_TAGS, _GEOMETRY_KEYS):
        ids = r.ids(tag)
        # MQSim stops with "Invalid chip ID specified for I/O flow 0" (`src/utils/
        # Logical_Address_Partitioning_Unit.cpp:90`); say which id and what the drive has.
        bad = [i for i in ids or [] if not 0 <= i < int(geometry[key])]
        if ids is not None and (bad or not ids):
            what = f"id {bad[0]} is not on the drive" if bad else "expected at least one id"
            raise r.err(r._get(tag), f"{what} (ssdconfig.xml: {geometry[key]} {key.replace('_', ' ')}, ids 0–{int(geometry[key]) - 1})")
        flow_ids.setdefault(tag, []).append(ids)
    occ = r.num("Initial_Occupancy_Percentage", lo=0, hi=100)
    return {"priority": prio, "cache_mode": mode, "occupancy": occ}


def scenarios_from_workload(path: Path, dev: dict, run: dict, warnings: List[str], trace_dirs: List[Path]) -> List[dict]:
    """One NeSt scenario (dict) per <IO_Scenario>."""
    path = Path(path)
    root = parse_xml(path)
    if root.tag != "MQSim_IO_Scenarios":
        raise MqsimError(f"{path}:{root.line}: {root.tag}: expected the root element MQSim_IO_Scenarios")
    out = []
    for si, sc in enumerate([c for c in root.children if c.tag == "IO_Scenario"], start=1):
        flows = [c for c in sc.children if c.tag.startswith("IO_Flow_Parameter_Set")]
        for c in sc.children:
            if not c.tag.startswith("IO_Flow_Parameter_Set"):
                warnings.append(f"{path.name}:{c.line}: {c.tag}: not an MQSim flow element; ignored")
        if not flows:
            raise MqsimError(f"{path}:{sc.line}: IO_Scenario: no IO_Flow_Parameter_Set_Synthetic or _Trace_Based inside")
        n = len(flows)
        capacity_share = 1.0 / n
        workloads, classes, occs, modes, stops, rates = [], {}, [], [], [], []
        flow_ids: dict = {}
        for fi, fl in enumerate(flows):
            r = _Reader(path, fl, warnings)
            common = _flow_common(r, flow_ids, dev["geometry"])
            classes[common["priority"]] = True
            if common["occupancy"] is not None:
                occs.append(common["occupancy"] / 100)
            if common["cache_mode"] is not None:
                modes.append((fl.line, common["cache_mode"]))
            w: dict = {"name": f"flow{fi}", "device": "ssd", "class": common["priority"]}
            # MQSim gives each flow a disjoint slice of the logical space.
            w["_share"] = (fi * capacity_share, capacity_share)
            if fl.tag == "IO_Flow_Parameter_Set_Synthetic":
                gen = r.enum("Synthetic_Generator_Type", {"QUEUE_DEPTH": "qd", "BANDWIDTH": "bw"}, "qd")
                read_pct = r.num("Read_Percentage", lo=0, hi=100, default=100)
                w["read_fraction"] = read_pct / 100
                addr = r.enum("Address_Distribution", {"RANDOM_UNIFORM": "uniform", "RANDOM_HOTCOLD": "hotcold", "STREAMING": "sequential"}, "uniform")
                if addr == "hotcold":
                    # MQSim: a hot region of r % of the flow's space takes 100 - r % of the
                    # requests, each region uniform (src/host/IO_Flow_Synthetic.cpp:129-145).
                    hot = r.num("Percentage_of_Hot_Region", lo=0, hi=100, default=0)
                    if 0 < hot < 100:
                        w["address"] = {"pattern": "hotcold", "hot_fraction": hot / 100, "hot_share": 1 - hot / 100}
                    else:
                        w["address"] = {"pattern": "uniform"}
                        r.warn("Percentage_of_Hot_Region", f"RANDOM_HOTCOLD with a hot region of {hot:g}% has one region only; "
                               "simulated as uniform (MQSim sends every request to one address at 0 %)")
                else:
                    r.num("Percentage_of_Hot_Region", lo=0, hi=100)
                    w["address"] = {"pattern": addr}
                    if addr == "sequential":
                        # MQSim starts a stream at a random aligned address of the flow's space,
                        # drawn from its seed (src/host/IO_Flow_Synthetic.cpp:201-205).
                        w["address"]["random_start"] = True
                aligned = r.flag("Generated_Aligned_Addresses", True)
                unit = r.num("Address_Alignment_Unit", kind=int, lo=1, default=8)
                w["align"] = f"{unit * 512 if aligned else 512}B"
                dist = r.enum("Request_Size_Distribution", {"FIXED": "fixed", "NORMAL": "normal"}, "fixed")
                avg = r.num("Average_Request_Size", kind=int, lo=1, default=8)
                # Sizes are at most 4 GiB (2^23 sectors): a wider spread means nothing, and a
                # variance near the float limit would overflow the half-width below.
                var = r.num("Variance_Request_Size", lo=0, hi=float(1 << 46), default=0)
                if dist == "fixed" or var == 0:
                    w["size"] = {"dist": "fixed", "bytes": f"{avg * 512}B"}
                else:
                    w["size"], giant = _mqsim_normal_sizes(avg, var)
                    if giant > 1e-4:
                        r.warn("Variance_Request_Size", f"MQSim draws sizes from Normal({avg}, {var:g}) with the variance as the standard deviation, "
                               f"and a draw below -1 sector ({giant:.1%} of them here) becomes a request of ~2^32 sectors (an unsigned cast); "
                               "NeSt leaves those draws out")
                if dev.get("compat") == "mqsim":
                    # Compat draws the flow's requests as MQSim does, from its seed
                    # (`mqsim_draws`; finalize adds the flow's sectors).
                    seed = r.num("Seed", kind=int, lo=-(1 << 31), hi=(1 << 31) - 1)
                    if seed is not None:
                        md = {"seed": seed, "size_sectors": avg, "align_sectors": unit if aligned else 1}
                        if dist == "normal" and var:
                            md["size_sd"] = float(var)
                        w["_mqsim_draws"] = md
                else:
                    r.ignore("Seed", "flow seeds are replaced by NeSt's per-component streams derived from the run seed")
                ws = r.num("Working_Set_Percentage", lo=0.001, hi=100, default=100)
                w["_ws"] = ws / 100
                if gen == "qd":
                    w["arrival"] = {"kind": "burst", "outstanding": r.num("Average_No_of_Reqs_in_Queue", kind=int, lo=1, default=1)}
                    rates.append(("qd", w["arrival"]["outstanding"], read_pct / 100, avg))
                    r.ignore("Bandwidth", "used only by BANDWIDTH generators")
                else:
                    bw = r.num("Bandwidth", lo=1)
                    if bw is None:
                        raise MqsimError(f"{path}:{fl.line}: {fl.tag}: a BANDWIDTH generator needs <Bandwidth> (bytes per second)")
                    w["arrival"] = {"kind": "poisson", "bandwidth": f"{bw}B/s"}
                    rates.append(("bw", int(bw), avg))
                    # MQSim's mean gap, in its integer arithmetic (src/exec/Host_System.cpp:57).
                    per = (int(bw) // 512) // avg
                    if "_mqsim_draws" in w and per > 0:
                        w["_mqsim_draws"]["gap_ns"] = 1_000_000_000 // per
                    r.ignore("Average_No_of_Reqs_in_Queue", "used only by QUEUE_DEPTH generators")
                r.ignore("Intensity", "MQSim does not read this element either; ignored")
                stop = r.num("Stop_Time", kind=int, lo=0, default=0)
                total = r.num("Total_Requests_To_Generate", kind=int, lo=0, default=0)
                if total:
                    w["max_ios"] = total
                if stop:
                    stops.append(stop)
                if not stop and not total:
                    raise MqsimError(f"{path}:{fl.line}: {fl.tag}: set Stop_Time or Total_Requests_To_Generate: the flow has no end")
            else:
                node = fl.child("File_Path")
                fp = r.text("File_Path")
                if not fp:
                    raise MqsimError(f"{path}:{fl.line}: {fl.tag}: missing File_Path")
                tp = _find_trace(fp, path, trace_dirs)
                if tp is None:
                    looked = ", ".join(str(d) for d in [path.parent] + trace_dirs)
                    raise MqsimError(f"{path}:{node.line}: File_Path: trace '{fp}' not found (looked relative to {looked}; "
                                     "MQSim would silently fall back to defaults, NeSt stops; use --trace-dir)")
                pct = r.num("Percentage_To_Be_Executed", lo=0.001, hi=100, default=100)
                relay = r.num("Relay_Count", kind=int, lo=1, default=1)
                unit = r.enum("Time_Unit", _TIME_UNIT, "ns")
                tr: dict = {"path": str(tp), "format": "mqsim"}
                if unit != "ns":
                    tr["time_unit"] = unit
                    r.warn("Time_Unit", "MQSim ignores Time_Unit (always ns); NeSt honours it")
                if relay > 1:
                    # MQSim replays the whole file Relay_Count times and then ignores the percentage
                    # (IO_Flow_Trace_Based.cpp:110-117).
                    tr["repeat"] = relay
                    if pct < 100:
                        r.warn("Percentage_To_Be_Executed", f"MQSim ignores it when Relay_Count > 1: the whole trace runs {relay} times")
                elif pct < 100:
                    lines = sum(1 for ln in open(tp, "rb") if ln.strip())
                    tr["max_records"] = max(1, int(lines * pct / 100))
                w["trace"] = tr
                rates.append(None)
            r.unknown()
            workloads.append(w)
        if len({m for _, m in modes}) > 1:
            warnings.append(f"{path.name}:{modes[1][0]}: Device_Level_Data_Caching_Mode: flows ask for different cache modes; "
                            f"NeSt's cache mode is per device, the first flow's ({modes[0][1]}) is used")
        d = {k: (dict(v) if isinstance(v, dict) else v) for k, v in dev.items()}
        slices = _mqsim_slices(flow_ids, dev["geometry"], float(dev["ftl"].get("overprovisioning", 0.07))) or []
        start = 0
        for w, m in zip(workloads, slices):
            if "trace" in w and m > 0:
                w["trace"]["wrap_at"] = f"{m * 512}B"
            # Where MQSim's slice of the flow starts, in sectors (`segment_skews`, at `finalize`).
            w["_mqsim_start"] = start
            if "_mqsim_draws" in w:
                # The flow's sectors as its generators see them: its slice, the working set
                # applied as IO_Flow_Base does (`LHA_type(start + (end - start) * ws)`), and its
                # logical pages (its occupancy's base) the whole slice's.
                spp = int(str(dev["geometry"]["page_size"]).rstrip("B")) // 512
                w["_mqsim_draws"].update(first_sector=start, last_sector=start + int(m * w.get("_ws", 1.0)), logical_pages=(m + 1) // spp)
            start += m + 1
        domains = _flow_domains(flow_ids, dev["geometry"])
        if domains is not None:
            # Each flow's slice of the logical space is its planes' share, and its pages live
            # on its own channels, chips, dies and planes (`model.domains`, docs/mqsim.md).
            start = 0.0
            for w, (share, ids) in zip(workloads, domains):
                w["_share"] = (start, share)
                w["_domain"] = ids
                start += share
        if modes:
            d["cache"] = dict(d.get("cache", {}), mode=modes[0][1])
        if run.get("_precondition") and occs:
            # MQSim lays the preconditioned pages out by the steady state the flow would reach
            # (`Address_Mapping_Unit_Page_Level.cpp:611-760`; compat's `mean_field_layout`): a
            # stream leaves its blocks full of valid pages (overwrites 0 picks that layout; and
            # NeSt's own, the pages written once, is near it), random writes a spread of them.
            streams = all(w.get("address", {}).get("pattern") == "sequential" for w in workloads if "trace" not in w)
            overwrites = 0.0 if streams and any("trace" not in w for w in workloads) else 1.0
            d["precondition"] = {"occupancy": round(sum(occs) / len(occs), 4), "overwrites": overwrites}
            # Hot/cold flows (one skew for all) precondition to their own steady state; MQSim's
            # estimate stretches the uniform one by it (`FTL.cpp:434-526`).
            addrs = [w.get("address", {}) for w in workloads if "trace" not in w]
            skews = {(a.get("hot_fraction"), a.get("hot_share")) for a in addrs}
            if addrs and len(skews) == 1 and all(a.get("pattern") == "hotcold" for a in addrs) and 0 < (next(iter(skews))[0] or 0) < 1:
                (f, s), = skews
                d["precondition"].update(hot_fraction=f, hot_share=s)
            warm = _cmt_warm_shares(rates, d.get("flash", {}))
            if warm and d.get("ftl", {}).get("cmt") != "all":
                # MQSim ends its preconditioning by bringing mapping entries of the written
                # pages into the CMT, each flow a share by its rate (`FTL.cpp:636-740`).
                d["precondition"]["cmt_warm"] = warm if domains is not None else min(1.0, sum(warm))
            if warm and domains is None:
                # ... and it draws the pages it writes from the flows' own seeded generators
                # (`FTL.cpp:108-320`): the run's first addresses, in its order.
                d["precondition"]["from_workloads"] = True
                # The FTL's generator (its walk) is seeded with the drive's Seed (MQSim's default
                # 123), whatever run seed NeSt is later given.
                d["precondition"]["walk_seed"] = int(run.get("seed", 123))
        rn = {k: v for k, v in run.items() if not k.startswith("_")}
        if stops:
            rn["duration"] = _ns(max(stops))
        sc_dict = {
            "schema": 1,
            "name": f"{path.stem}-scenario{si}",
            "run": rn,
            "host": [{"name": "host0", "queue_depth": 65536}],
            "device": [d],
            "workload": workloads,
        }
        out.append(sc_dict)
    if not out:
        raise MqsimError(f"{path}:{root.line}: {root.tag}: no IO_Scenario elements")
    return out


def _find_trace(fp: str, wl_path: Path, dirs: List[Path]) -> Optional[Path]:
    p = Path(fp)
    if p.is_absolute():
        return p if p.is_file() else None
    for base in [wl_path.parent, Path.cwd()] + dirs:
        for cand in (base / p, base / p.name):
            if cand.is_file():
                return cand.resolve()
    return None


def _cmt_warm_shares(rates: list, flash: dict) -> Optional[List[float]]:
    """Each flow's share of the CMT MQSim's preconditioning fills: its rate over all flows'
    (`src/ssd/FTL.cpp:50-75, 642-667`) — a QUEUE_DEPTH flow's the queue depth times its request
    size over the average flash access time, a BANDWIDTH flow's its request size over the mean
    gap. None with a trace flow: MQSim does not precondition for those (docs/mqsim.md)."""
    if not rates or any(r is None for r in rates):
        return None

    def mean_ns(key: str) -> int:
        vals = [int(str(v)[:-2]) for v in flash.get(key, [])]
        return sum(vals) // len(vals) if vals else 0

    t_read, t_prog = mean_ns("read"), mean_ns("program")
    per_flow = []
    for r in rates:
        if r[0] == "qd":
            _, qd, read, size = r
            gap = int(read * t_read + (1 - read) * t_prog) / qd
        else:
            _, bw, size = r
            per_sec = (bw // 512) // size
            gap = 10**9 // per_sec if per_sec else 0
        per_flow.append(1.0 / gap * 1e9 * size if gap > 0 else 0.0)
    total = sum(per_flow)
    return [f / total for f in per_flow] if total > 0 else None


def finalize(sc: dict, capacity: int) -> dict:
    """Turns per-flow shares into byte ranges once the device capacity is known."""
    for w in sc["workload"]:
        start_frac, share = w.pop("_share")
        ws = w.pop("_ws", 1.0)
        if "trace" in w:
            if len(sc["workload"]) > 1 or "_domain" in w:
                # MQSim keeps each trace flow to its own slice, an address past it wrapping
                # (`src/host/IO_Flow_Trace_Based.cpp:49-57`).
                step = int(sc["device"][0]["geometry"]["page_size"][:-1]) if "_domain" in w else 512
                start = int(capacity * start_frac) // step * step
                w["range_start"] = f"{start}B"
                w["range"] = f"{int(capacity * share) // 512 * 512}B"
            continue
        align = int(w.get("align", "4096B")[:-1])
        span = int(capacity * share) // align * align
        # A domain (`model.domains`) starts on a page.
        step = int(sc["device"][0]["geometry"]["page_size"][:-1]) if "_domain" in w else align
        start = int(capacity * start_frac) // step * step
        rng = max(align, int(span * ws) // align * align)
        w["range_start"] = f"{start}B"
        w["range"] = f"{rng}B"
    # MQSim numbers each flow's addresses from zero (its stream's domain), and its shared CMT
    # writes an entry evicted by another stream's miss back in that stream's domain
    # (`mapping_domains`, docs/mqsim.md): the compat device is told where the domains start.
    doms = [dict(start=int(w["range_start"][:-1]), **w.pop("_domain")) for w in sc["workload"] if "_domain" in w]
    if doms:
        for dev in sc["device"]:
            dev.setdefault("model", {})["domains"] = doms
    starts = sorted({int(w["range_start"][:-1]) for w in sc["workload"] if "range_start" in w})
    # MQSim splits requests where the drive's pages end but numbers pages from the flow's start
    # (`segment_skews`, docs/mqsim.md): how far past a page each flow's MQSim slice starts.
    page = int(str(sc["device"][0]["geometry"]["page_size"]).rstrip("B"))
    skew = {int(w["range_start"][:-1]): w["_mqsim_start"] * 512 % page for w in sc["workload"] if "range_start" in w and "_mqsim_start" in w}
    for w in sc["workload"]:
        w.pop("_mqsim_start", None)
        md = w.pop("_mqsim_draws", None)
        if md is not None and "first_sector" in md:
            w["mqsim_draws"] = md
    for dev in sc["device"]:
        if dev.get("compat") == "mqsim" and len(starts) > 1 and all("range_start" in w for w in sc["workload"]):
            dev.setdefault("model", {})["mapping_domains"] = starts
            if any(skew.get(b, 0) for b in starts):
                dev["model"]["segment_skews"] = [skew.get(b, 0) for b in starts]
    return sc


def load(ssdconfig: Path, workload: Path, trace_dirs: Optional[List[Path]] = None, compat: bool = False) -> Tuple[List[dict], List[str]]:
    """(NeSt scenarios, warnings) for an MQSim ssdconfig.xml + workload.xml pair. `compat`: the
    device takes MQSim's model choices (`compat = "mqsim"`) instead of NeSt's defaults."""
    from . import _native

    warnings: List[str] = []
    dev, run = device_from_ssdconfig(Path(ssdconfig), warnings)
    if compat:
        dev["compat"] = "mqsim"
        # MQSim's GC unit draws RGA's samples from its own generator, always seeded 432: the
        # drive's Seed + 1 lands on `dynamic_wearleveling_enabled` and the seed keeps its default
        # (src/exec/SSD_Device.cpp:305-311, GC_and_WL_Unit_Page_Level.h:21). Compat draws so too.
        dev.setdefault("model", {})["gc_seed"] = 432
    scs = scenarios_from_workload(Path(workload), dev, run, warnings, [Path(t) for t in (trace_dirs or [])])
    out = []
    for sc in scs:
        probe = {k: v for k, v in sc.items()}
        probe["workload"] = [{"name": "probe", "device": "ssd", "arrival": {"kind": "burst", "outstanding": 1}}]
        probe["run"] = dict(sc["run"], duration="1ns")
        try:
            cap = _native.device_capacity(json.dumps(probe), "ssd")
        except _native.ConfigError as e:
            # The generated scenario's lines mean nothing to the user; its keys, with the file, do.
            raise MqsimError(re.sub(r"<dict>(:\d+(:\d+)?)?", f"{ssdconfig} (converted)", str(e))) from None
        out.append(finalize(sc, cap))
    return out, warnings
