//! The throughput prediction model as trained by `nestsim.tpm` (scikit-learn) and exported to a
//! versioned JSON file: a decision tree or a random forest of regression trees with two outputs
//! (read and write throughput, bytes/s). This evaluator gives scikit-learn's predictions exactly
//! (tested against scikit-learn from Python, `tests/test_tpm.py`), because it repeats the three
//! things scikit-learn does:
//! - the input row is converted to `f32` before any comparison (scikit-learn's trees store X as
//!   float32) and compared as `x ≤ threshold` with the threshold in `f64`;
//! - a leaf's value is the mean of its training targets, as stored;
//! - a forest sums its trees' predictions in tree order and divides by the number of trees.
//!
//! The file (`format` "nestsim-tpm", `version` 1):
//! `{"format", "version", "model": "random_forest" | "decision_tree", "features": [names, in
//! input order], "outputs": ["read_Bps", "write_Bps"], "w_max": the largest w trained on,
//! "trees": [{"feature": [..], "threshold": [..], "left": [..], "right": [..], "value": [[read,
//! write], ..]}, ..], ...}` — node arrays as scikit-learn's `tree_` holds them (a leaf has
//! `left` = −1); other keys (what it was trained on) are carried, not read.

use super::algorithm::ThroughputModel;
use super::monitor::{Features, FEATURE_NAMES};
use serde::Deserialize;

pub const FORMAT: &str = "nestsim-tpm";
pub const VERSION: u32 = 1;

#[derive(Deserialize)]
struct FileTree {
    feature: Vec<i64>,
    threshold: Vec<f64>,
    left: Vec<i64>,
    right: Vec<i64>,
    value: Vec<[f64; 2]>,
}

#[derive(Deserialize)]
struct File {
    format: String,
    version: u32,
    model: String,
    features: Vec<String>,
    outputs: Vec<String>,
    w_max: u32,
    trees: Vec<FileTree>,
}

#[derive(Copy, Clone, Debug)]
struct Node {
    /// Feature index; `u32::MAX` at a leaf.
    feature: u32,
    threshold: f64,
    left: u32,
    right: u32,
}

#[derive(Debug)]
struct Tree {
    nodes: Vec<Node>,
    value: Vec<[f64; 2]>,
}

impl Tree {
    #[inline]
    fn leaf(&self, x: &[f32]) -> &[f64; 2] {
        let mut i = 0usize;
        loop {
            let n = &self.nodes[i];
            if n.feature == u32::MAX {
                return &self.value[i];
            }
            i = if x[n.feature as usize] as f64 <= n.threshold { n.left } else { n.right } as usize;
        }
    }
}

/// A trained model: one tree (a decision tree) or several (a random forest).
#[derive(Debug)]
pub struct TreeEnsemble {
    trees: Vec<Tree>,
    n_features: usize,
    /// The largest write weight in its training samples.
    pub w_max: u32,
    pub kind: String,
}

/// How a scenario names a shipped model: `model = "shipped:ssd-a"`.
pub const SHIPPED_PREFIX: &str = "shipped:";

/// The models shipped for the presets, embedded in the build: compact forests trained on NeSt's
/// own drives by `scripts/ship_tpm_models.py` (docs/src.md).
pub const SHIPPED: [(&str, &str); 3] = [
    ("ssd-a", include_str!("../../models/tpm-ssd-a.json")),
    ("ssd-b", include_str!("../../models/tpm-ssd-b.json")),
    ("ssd-c", include_str!("../../models/tpm-ssd-c.json")),
];

/// The text of the model shipped for `preset`.
pub fn shipped_text(preset: &str) -> Result<&'static str, String> {
    SHIPPED.iter().find(|(p, _)| *p == preset).map(|(_, t)| *t).ok_or_else(|| {
        let names: Vec<&str> = SHIPPED.iter().map(|(p, _)| *p).collect();
        format!("no model is shipped for '{preset}': expected one of {names:?} (or a model file exported by nestsim.tpm)")
    })
}

impl TreeEnsemble {
    /// A model named as a scenario names it: "shipped:PRESET", or a file's path.
    pub fn load(spec: &str) -> Result<TreeEnsemble, String> {
        match spec.strip_prefix(SHIPPED_PREFIX) {
            Some(preset) => TreeEnsemble::from_json(shipped_text(preset)?),
            None => TreeEnsemble::from_json(&std::fs::read_to_string(spec).map_err(|e| format!("{spec}: {e}"))?).map_err(|e| format!("{spec}: {e}")),
        }
    }

    /// Reads an exported model; the error says what is wrong and where (serde's line:column,
    /// or the tree and node).
    pub fn from_json(text: &str) -> Result<TreeEnsemble, String> {
        let f: File = serde_json::from_str(text).map_err(|e| format!("not a throughput model file: {e}"))?;
        if f.format != FORMAT {
            return Err(format!("format '{}': expected '{FORMAT}'", f.format));
        }
        if f.version != VERSION {
            return Err(format!("version {}: this NeSt reads version {VERSION} (re-export the model with this nestsim)", f.version));
        }
        if f.model != "random_forest" && f.model != "decision_tree" {
            return Err(format!("model '{}': expected random_forest or decision_tree", f.model));
        }
        let want: Vec<&str> = FEATURE_NAMES.iter().copied().chain(["w"]).collect();
        if f.features != want {
            return Err(format!("features {:?}: expected {want:?} (the monitor's Ch, then w)", f.features));
        }
        if f.outputs.len() != 2 {
            return Err(format!("outputs {:?}: expected two (read and write throughput, bytes/s)", f.outputs));
        }
        if f.w_max == 0 {
            return Err("w_max must be at least 1".into());
        }
        if f.trees.is_empty() {
            return Err("no trees".into());
        }
        let n_features = want.len();
        let mut trees = Vec::with_capacity(f.trees.len());
        for (t, ft) in f.trees.into_iter().enumerate() {
            let n = ft.feature.len();
            if n == 0 || [ft.threshold.len(), ft.left.len(), ft.right.len(), ft.value.len()].iter().any(|&l| l != n) {
                return Err(format!("trees[{t}]: feature, threshold, left, right and value must have the same, non-zero length"));
            }
            let mut nodes = Vec::with_capacity(n);
            for i in 0..n {
                let (l, r) = (ft.left[i], ft.right[i]);
                let node = if l < 0 {
                    if r >= 0 {
                        return Err(format!("trees[{t}] node {i}: a left child of {l} but a right child of {r}"));
                    }
                    Node { feature: u32::MAX, threshold: 0.0, left: 0, right: 0 }
                } else {
                    // Children after their parent (as scikit-learn numbers them): every walk ends.
                    let ok = |c: i64| c > i as i64 && (c as usize) < n;
                    let feat = ft.feature[i];
                    if !ok(l) || !ok(r) || feat < 0 || feat as usize >= n_features || ft.threshold[i].is_nan() {
                        return Err(format!("trees[{t}] node {i}: feature {feat}, children {l} and {r}, threshold {}: expected a feature below {n_features}, children after the node and below {n}", ft.threshold[i]));
                    }
                    Node { feature: feat as u32, threshold: ft.threshold[i], left: l as u32, right: r as u32 }
                };
                nodes.push(node);
            }
            trees.push(Tree { nodes, value: ft.value });
        }
        Ok(TreeEnsemble { trees, n_features, w_max: f.w_max, kind: f.model })
    }

    /// The model's prediction for one input row (Ch then w), as scikit-learn's `predict`.
    pub fn predict_row(&self, x: &[f64]) -> [f64; 2] {
        assert_eq!(x.len(), self.n_features, "one value per feature");
        let mut x32 = [0f32; 16];
        for (d, &v) in x32.iter_mut().zip(x) {
            *d = v as f32;
        }
        let mut sum = [0.0f64; 2];
        for t in &self.trees {
            let v = t.leaf(&x32);
            sum[0] += v[0];
            sum[1] += v[1];
        }
        let n = self.trees.len() as f64;
        [sum[0] / n, sum[1] / n]
    }

    pub fn n_trees(&self) -> usize {
        self.trees.len()
    }
}

impl ThroughputModel for TreeEnsemble {
    fn predict(&self, ch: &Features, w: u32) -> (f64, f64) {
        let a = ch.as_array();
        let mut x = [0.0f64; 8];
        x[..7].copy_from_slice(&a);
        x[7] = w as f64;
        let [r, wr] = self.predict_row(&x);
        (r, wr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stump on w (feature 7) at 2.5, and a tree splitting read_share at 0.5 then w at 1.5.
    fn model(trees: &str) -> String {
        let names: Vec<String> = FEATURE_NAMES.iter().map(|s| format!("\"{s}\"")).chain(["\"w\"".into()]).collect();
        format!(
            r#"{{"format": "nestsim-tpm", "version": 1, "model": "random_forest", "features": [{}], "outputs": ["read_Bps", "write_Bps"], "w_max": 8, "trained_on": {{"preset": "x"}}, "trees": [{trees}]}}"#,
            names.join(", ")
        )
    }

    const STUMP: &str =
        r#"{"feature": [7, -2, -2], "threshold": [2.5, -2.0, -2.0], "left": [1, -1, -1], "right": [2, -1, -1], "value": [[0, 0], [100, 10], [50, 40]]}"#;
    const DEEP: &str = r#"{"feature": [0, -2, 7, -2, -2], "threshold": [0.5, -2.0, 1.5, -2.0, -2.0], "left": [1, -1, 3, -1, -1], "right": [2, -1, 4, -1, -1], "value": [[0, 0], [1, 1], [0, 0], [300, 3], [200, 20]]}"#;

    #[test]
    fn a_forest_averages_its_trees_leaves_walked_by_the_rows_features() {
        let m = TreeEnsemble::from_json(&model(&format!("{STUMP}, {DEEP}"))).unwrap();
        assert_eq!((m.n_trees(), m.w_max), (2, 8));
        let ch = Features { read_share: 0.7, ..Default::default() };
        assert_eq!(m.predict(&ch, 1), ((100.0 + 300.0) / 2.0, (10.0 + 3.0) / 2.0));
        assert_eq!(m.predict(&ch, 2), ((100.0 + 200.0) / 2.0, (10.0 + 20.0) / 2.0));
        assert_eq!(m.predict(&ch, 3), ((50.0 + 200.0) / 2.0, (40.0 + 20.0) / 2.0));
        let low = Features { read_share: 0.5, ..Default::default() };
        assert_eq!(m.predict(&low, 3), ((50.0 + 1.0) / 2.0, (40.0 + 1.0) / 2.0), "0.5 ≤ 0.5 goes left");
    }

    #[test]
    fn inputs_are_compared_as_float32_like_scikit_learn() {
        // 0.1 as f32 is 0.100000001490116…: above a threshold of 0.1 in f64.
        let t = r#"{"feature": [0, -2, -2], "threshold": [0.1, -2.0, -2.0], "left": [1, -1, -1], "right": [2, -1, -1], "value": [[0, 0], [1, 1], [2, 2]]}"#;
        let m = TreeEnsemble::from_json(&model(t)).unwrap();
        assert_eq!(m.predict(&Features { read_share: 0.1, ..Default::default() }, 1).0, 2.0);
    }

    #[test]
    fn malformed_models_are_refused_with_what_is_wrong() {
        let cases = [
            (model(STUMP).replace("nestsim-tpm", "other"), "format"),
            (model(STUMP).replace("\"version\": 1", "\"version\": 2"), "version 2"),
            (model(STUMP).replace("random_forest", "svm"), "model 'svm'"),
            (model(STUMP).replace("\"speed_write\", ", ""), "features"),
            (model(STUMP).replace("[1, -1, -1]", "[0, -1, -1]"), "node 0"),
            (model(STUMP).replace("[7, -2, -2]", "[8, -2, -2]"), "feature 8"),
            (model(STUMP).replace("[2, -1, -1]", "[2, -1]"), "same, non-zero length"),
            (model(""), "no trees"),
            ("{".to_string(), "line 1"),
        ];
        for (text, want) in cases {
            let e = TreeEnsemble::from_json(&text).unwrap_err();
            assert!(e.contains(want), "{want}: {e}");
        }
    }
}
