//! The report: rows of figures with their target and reproducing command, as a table and JSON.

use serde_json::{json, Value};

#[derive(Default)]
pub struct Report {
    rows: Vec<Row>,
    details: serde_json::Map<String, Value>,
}

pub struct Row {
    pub figure: String,
    pub sonde: String,
    pub baseline: String,
    pub ratio: Option<f64>,
    pub target: String,
    pub met: Option<bool>,
}

impl Report {
    pub fn row(&mut self, row: Row) {
        eprintln!("sonde-bench: {}: {} (baseline {})", row.figure, row.sonde, row.baseline);
        self.rows.push(row);
    }

    pub fn detail(&mut self, section: &str, value: Value) {
        self.details.insert(section.to_owned(), value);
    }

    pub fn print(&self) {
        println!("| figure | Sonde | baseline | ratio | target | met |");
        println!("| --- | --- | --- | --- | --- | --- |");
        for r in &self.rows {
            let ratio = r.ratio.map_or("—".to_owned(), |x| format!("{x:.2}×"));
            let met = match r.met {
                Some(true) => "yes",
                Some(false) => "NO",
                None => "—",
            };
            println!("| {} | {} | {} | {ratio} | {} | {met} |", r.figure, r.sonde, r.baseline, r.target);
        }
        println!(
            "\nReproduce: make bench   (or: cargo build --release -p sonde-bench -p sonde-fixture -p sonde-cli && target/release/sonde-bench)"
        );
    }

    pub fn write(&self, path: &std::path::Path) {
        let rows: Vec<Value> = self
            .rows
            .iter()
            .map(|r| json!({"figure": r.figure, "sonde": r.sonde, "baseline": r.baseline, "ratio": r.ratio, "target": r.target, "met": r.met}))
            .collect();
        let doc = json!({"rows": rows, "details": self.details, "command": "make bench"});
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        std::fs::write(path, serde_json::to_vec_pretty(&doc).expect("serializes"))
            .expect("write the results");
    }
}

pub fn percentile(sorted_ms: &[f64], p: f64) -> f64 {
    if sorted_ms.is_empty() {
        return 0.0;
    }
    let i = ((sorted_ms.len() as f64 - 1.0) * p).round() as usize;
    sorted_ms[i]
}

/// The median of `v` with its min and max.
pub fn median_min_max(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    (v[v.len() / 2], v[0], v[v.len() - 1])
}
