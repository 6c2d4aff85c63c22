//! "Did you mean …?" (nest-core's `suggest`), and its use on a scenario's misspelt keys.

pub use nest_core::suggest::*;

#[cfg(test)]
mod tests {
    #[test]
    fn a_misspelt_key_or_variant_in_a_scenario_gets_a_suggestion() {
        let load = |t: &str| crate::load_str(t, "t.toml", ".".into(), &[], None).unwrap_err().to_string();
        let e = load("schema = 1\n[run]\ndurration = \"1ms\"\n");
        assert!(e.contains("t.toml:3:1") && e.contains("did you mean `duration`?"), "{e}");
        let e = load("schema = 1\n[[workload]]\nname = \"w\"\ndevice = \"d\"\narrival = { kind = \"posson\", rate_iops = 1 }\n");
        assert!(e.contains("did you mean `poisson`?"), "{e}");
        // An override's misspelling is blamed on the --set, with the hint.
        let e = crate::load_str("schema = 1\n", "t.toml", ".".into(), &["run.durration=1ms".into()], None).unwrap_err().to_string();
        assert!(e.contains("did you mean `duration`?"), "{e}");
    }
}
