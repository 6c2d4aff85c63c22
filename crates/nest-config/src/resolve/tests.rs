use super::*;
use crate::load_str;

const GOOD: &str = r#"
schema = 1
name = "t"
[run]
seed = 7
duration = "10ms"
warmup = "10%"

[[device]]
name = "ssd0"
kind = "ideal"
servers = 4
read = { dist = "exp", mean = "80us" }
write = { dist = "fixed", value = "20us" }

[[workload]]
name = "a"
device = "ssd0"
class = "high"
arrival = { kind = "poisson", rate_iops = 10000 }
size = { dist = "uniform_blocks", min = 5, max = 30 }
read_fraction = 0.7
"#;

fn check(text: &str) -> Result<Resolved, ConfigErrors> {
    let l = load_str(text, "s.toml", PathBuf::from("."), &[], None)?;
    resolve(&l, text)
}

#[test]
fn a_good_scenario_resolves() {
    let r = check(GOOD).unwrap();
    assert_eq!(r.run.seed, 7);
    assert_eq!(r.run.warmup, SimTime::from_ms(1));
    assert_eq!(r.classes.len(), 5);
    assert_eq!(r.workloads[0].class, 1);
    let SourcePlan::Synthetic(s) = &r.workloads[0].source else { panic!() };
    assert_eq!(s.stop, Some(SimTime::from_ms(10)));
}

#[test]
fn unknown_key_names_line_and_key() {
    let text = GOOD.replace("servers = 4", "servers = 4\nserverz = 5");
    let e = check(&text).unwrap_err();
    let s = e.to_string();
    assert!(s.contains("s.toml:"), "{s}");
    assert!(s.contains("serverz"), "{s}");
    assert!(e.0[0].line > 0, "{s}");
}

#[test]
fn wrong_type_and_bad_units_are_located() {
    let e = check(&GOOD.replace("seed = 7", "seed = \"seven\"")).unwrap_err();
    assert_eq!(e.0[0].line, 5, "{e}");
    let e = check(&GOOD.replace("\"80us\"", "\"80 parsecs\"")).unwrap_err();
    assert_eq!(e.0[0].key, "device[0].read.mean");
    assert_eq!(e.0[0].line, 13, "{e}");
    assert!(e.0[0].message.contains("unknown time unit"), "{e}");
}

#[test]
fn every_semantic_error_is_collected() {
    let text = GOOD.replace("class = \"high\"", "class = \"gold\"").replace("read_fraction = 0.7", "read_fraction = 1.7").replace("rate_iops = 10000", "rate_iops = -1");
    let e = check(&text).unwrap_err();
    let keys: Vec<&str> = e.0.iter().map(|x| x.key.as_str()).collect();
    assert!(keys.contains(&"workload[0].class"), "{e}");
    assert!(keys.contains(&"workload[0].read_fraction"), "{e}");
    assert!(keys.contains(&"workload[0].arrival.rate_iops"), "{e}");
    assert!(e.0.iter().all(|x| x.line > 0), "{e}");
}

#[test]
fn dangling_references_and_missing_files() {
    let text = GOOD.replace("device = \"ssd0\"", "device = \"ssd9\"");
    assert!(check(&text).unwrap_err().to_string().contains("no device or volume named 'ssd9'"));
    let text = GOOD.replace("arrival = { kind = \"poisson\", rate_iops = 10000 }", "trace = { path = \"/nonexistent/x.csv\", format = \"msr\" }");
    assert!(check(&text).unwrap_err().to_string().contains("does not exist"));
    let text = GOOD.replace("arrival = { kind = \"poisson\", rate_iops = 10000 }", "trace = { path = \"/nonexistent/x.csv\", format = \"csv\" }");
    assert!(check(&text).unwrap_err().to_string().contains("unknown trace format"));
}

#[test]
fn overrides_and_seed() {
    let l = load_str(GOOD, "s.toml", PathBuf::from("."), &["run.duration=\"20ms\"".into(), "workload[0].read_fraction=0.5".into()], Some(99)).unwrap();
    let r = resolve(&l, GOOD).unwrap();
    assert_eq!(r.run.seed, 99);
    assert_eq!(r.run.duration, Some(SimTime::from_ms(20)));
    let e = load_str(GOOD, "s.toml", PathBuf::from("."), &["workload[0].read_fraction=\"x\"".into()], None).unwrap_err();
    assert!(e.to_string().contains("overrides"), "{e}");
}

#[test]
fn env_expansion() {
    std::env::set_var("NEST_TEST_DIR_X", "/a/b");
    assert_eq!(expand_env("${NEST_TEST_DIR_X}/c").unwrap(), "/a/b/c");
    assert_eq!(expand_env("${NEST_UNSET_Y:-../shared}/t").unwrap(), "../shared/t");
    assert!(expand_env("${NEST_UNSET_Y}/t").is_err());
}

#[test]
fn random_and_truncated_text_never_panics() {
    let mut rng = nest_core::rng::RngStream::from_seed(13);
    let alphabet = b"=[]{}\",.\n #abcdefghijklmnopqrstuvwxyz0123456789_-";
    for _ in 0..2000 {
        let mut b = GOOD.as_bytes()[..rng.below(GOOD.len() as u64) as usize].to_vec();
        for _ in 0..rng.below(4) {
            if b.is_empty() { break; }
            let i = rng.below(b.len() as u64) as usize;
            b[i] = alphabet[rng.below(alphabet.len() as u64) as usize];
        }
        let text = String::from_utf8_lossy(&b).into_owned();
        if let Err(e) = check(&text) {
            assert!(!e.0.is_empty());
        }
    }
}
