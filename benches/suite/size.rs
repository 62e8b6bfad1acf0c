//! What the plugin adds to a release app, whole and feature by feature, beside what
//! tauri-plugin-sql adds: the rows `scripts/size.sh` wrote (it builds
//! `bench-compare/size/` once per variant), read from the file `BENCH_SIZE_ROWS` names. `scripts/bench.sh` runs the script first.

use crate::report::Report;

pub fn measure(report: &mut Report) {
    if !report.wants("size") {
        return;
    }
    let Some(path) = std::env::var_os("BENCH_SIZE_ROWS") else {
        report.info(
            "size: (not measured; scripts/bench.sh runs scripts/size.sh)",
            "skipped".into(),
        );
        return;
    };
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    for line in text.lines() {
        let mut fields = line.split('\t');
        let (Some("ROW"), Some(name), Some(value)) = (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        if name.ends_with("adds less than tauri-plugin-sql") {
            report.checked(name, value.into(), String::new(), "yes", value == "yes");
        } else if let (Some(goal), Some(met)) = (fields.next(), fields.next()) {
            // A row with a goal: the script says whether it is met.
            report.checked(name, value.into(), String::new(), goal, met == "yes");
        } else {
            report.info(name, value.into());
        }
    }
}
