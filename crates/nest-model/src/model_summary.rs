//! The `model` block of an SSD in `summary.json`: the model switches, named only when one
//! differs from NeSt's default (compat runs, or a scenario's own `[device.model]`), with the
//! counters that only those switches produce (docs/mqsim.md).

use nest_ssd::Ssd;
use serde_json::{json, Value};

pub(crate) fn model_json(s: &Ssd) -> Option<Value> {
    let m = &s.params.model;
    if *m == nest_ssd::switches::ModelSwitches::default() {
        return None;
    }
    let f = &s.ftl.counters;
    let mut out = json!({
        "die_interleave": m.die_interleave, "command_waits_for_channel": m.command_waits_for_channel, "multiplane_same_page": m.multiplane_same_page, "data_out_per_page": m.data_out_per_page, "mapping_out_first": m.mapping_out_first, "multiplane_across_classes": m.multiplane_across_classes,
        "program_transfer": m.program_transfer.name(),
        "cmt_granularity": m.cmt_granularity.name(),
        "cmt_entry_bytes": m.cmt_entry_bytes, "map_entry_bytes": m.map_entry_bytes,
        "mapping_writes": m.mapping_writes.name(),
        "merge_read": m.merge_read.name(), "unwritten_read_maps": m.unwritten_read_maps,
        "evicted_entry_misfiled": m.evicted_entry_misfiled,
        "destage": m.destage.name(),
        "gc_precedence": m.gc_precedence.name(),
        "hot_window_s": m.hot_window.as_secs_f64(), "hot_reset": m.hot_reset.name(),
        "writeback_limit_pages": m.writeback_limit_pages,
        "dram_timing": m.dram_timing.name(), "write_admission": m.write_admission.name(),
        "pcie_framing": m.pcie_framing.name(), "sqe_over_pcie": m.sqe_over_pcie, "rga_sampling": m.rga_sampling.name(), "gc_floor_blocks": m.gc_floor_blocks,
        "pages_at_dispatch": m.pages_at_dispatch, "mapping_domains": m.mapping_domains, "gc_jobs_per_plane": m.gc_jobs_per_plane,
        "gc_reads_first": m.gc_reads_first, "cmt_per_domain": m.cmt_per_domain, "open_frontiers": m.open_frontiers, "gc_user_partners": m.gc_user_partners, "gc_erases_last": m.gc_erases_last, "page_types": m.page_types.name(), "map_page_offsets": m.map_page_offsets, "channel_whole_ns": m.channel_whole_ns, "gc_partnered_programs": s.counters.gc_partnered_programs, "free_mapping_misses": s.cmt_free_misses(),
        "pinned_translation_blocks": f.pinned_blocks, "pinned_unplaced": f.pinned_unplaced,
    });
    out["schedule_after_submit"] = json!(m.schedule_after_submit); // (json!'s recursion limit)
    out["walk_idle_channels"] = json!(m.walk_idle_channels);
    out["precondition_closes_frontiers"] = json!(m.precondition_closes_frontiers);
    out["mean_field_layout"] = json!(m.mean_field_layout);
    out["gc_at_block_takes"] = json!(m.gc_at_block_takes);
    out["gc_moves_enter_cmt"] = json!(m.gc_moves_enter_cmt);
    out["static_wl_block_ids"] = json!(m.static_wl_block_ids);
    out["gc_read_partners"] = json!(m.gc_read_partners);
    out["gc_partnered_reads"] = json!(s.counters.gc_partnered_reads);
    out["map_read_partners"] = json!(m.map_read_partners);
    out["gc_seed"] = json!(m.gc_seed);
    out["gc_thresholds_truncated"] = json!(m.gc_thresholds_truncated);
    out["gc_waits_for_user_reads"] = json!(m.gc_waits_for_user_reads);
    out["gc_jobs_postponed"] = json!(s.counters.gc_jobs_postponed);
    out["writeback_refreshes_siblings"] = json!(m.writeback_refreshes_siblings);
    out["map_partnered_reads"] = json!(s.counters.map_partnered_reads);
    out["stream_frontiers"] = json!(m.stream_frontiers);
    out["segment_skews"] = json!(m.segment_skews);
    out["onfi_command_phases"] = json!(m.onfi_command_phases);
    out["gc_multiplane"] = json!(m.gc_multiplane);
    out["class_wrr"] = json!(m.class_wrr.name());
    out["gc_lock_loses_writebacks"] = json!(m.gc_lock_loses_writebacks);
    out["writebacks_lost_at_gc_lock"] = json!(s.counters.writebacks_lost);
    out["gc_lock_hangs_reads"] = json!(m.gc_lock_hangs_reads);
    out["reads_hung_at_gc_lock"] = json!(s.counters.reads_hung);
    out["domains"] = json!(m
        .domains
        .iter()
        .map(|d| json!({"start": d.start, "channels": d.ids[0], "chips": d.ids[1], "dies": d.ids[2], "planes": d.ids[3]}))
        .collect::<Vec<_>>());
    Some(out)
}
