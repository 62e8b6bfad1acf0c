//! The side-by-side comparison: a published Rust job queue on SQLite, built as its
//! own crate in `bench-compare/` (outside the workspace, its own Cargo.lock, so its
//! SQLite never meets ours), run as a child process in the same run.

use std::path::PathBuf;
use std::process::Command;

use crate::report::Report;

pub fn measure(report: &mut Report) {
    if !report.wants("compared") {
        return;
    }
    let binary = std::env::var_os("BENCH_COMPARE_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("bench-compare/target/release/bench-compare")
        });
    if !binary.exists() {
        report.info(
            "compared: (not built; scripts/bench.sh builds bench-compare/)",
            "skipped".into(),
        );
        return;
    }
    let output = Command::new(&binary)
        .args([
            "--jobs",
            &report.jobs.to_string(),
            "--repeat",
            &report.repeat.to_string(),
        ])
        .output()
        .expect("run bench-compare");
    assert!(
        output.status.success(),
        "bench-compare failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).unwrap();
    let mut library = String::from("compared");
    for line in stdout.lines() {
        let mut fields = line.split('\t');
        if fields.next() != Some("ROW") {
            continue;
        }
        let (Some(name), Some(value)) = (fields.next(), fields.next()) else {
            continue;
        };
        if name == "library" {
            library = value.to_owned();
            continue;
        }
        report.info(&format!("{library}: {name}"), value.to_owned());
    }
}
