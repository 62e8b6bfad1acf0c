//! The table every scenario adds a row to, and small measuring helpers.

use std::time::Duration;

/// Whether a row met its target.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Met,
    Missed,
    /// No target, or a figure only to compare with.
    Info,
}

pub struct Row {
    pub name: String,
    pub value: String,
    /// The figure as a share of a raw SQLite ceiling measured in this run.
    pub ratio: String,
    pub target: String,
    pub verdict: Verdict,
}

/// The suite's settings and the rows measured so far.
pub struct Report {
    pub jobs: usize,
    pub repeat: usize,
    only: Option<String>,
    rows: Vec<Row>,
    /// Further tables, printed after the main one.
    appendices: Vec<String>,
}

impl Report {
    pub fn new(jobs: usize, repeat: usize, only: Option<String>) -> Self {
        Report {
            jobs,
            repeat,
            only,
            rows: Vec::new(),
            appendices: Vec::new(),
        }
    }

    /// Whether `BENCH_ONLY` lets the scenario called `name` run.
    pub fn wants(&self, name: &str) -> bool {
        self.only
            .as_ref()
            .is_none_or(|only| name.contains(only.as_str()))
    }

    /// Adds a row and shows it on stderr at once, so a long run shows progress.
    pub fn add(&mut self, row: Row) {
        eprintln!(
            "  {:<70} {:>20} {:>14}  {}",
            row.name, row.value, row.ratio, row.target
        );
        self.rows.push(row);
    }

    /// The result of the first row whose name contains `part`.
    pub fn value_of(&self, part: &str) -> Option<String> {
        self.rows
            .iter()
            .find(|row| row.name.contains(part))
            .map(|row| row.value.clone())
    }

    /// A further table, printed after the main one.
    pub fn appendix(&mut self, table: String) {
        self.appendices.push(table);
    }

    /// A row without a ceiling ratio.
    pub fn info(&mut self, name: &str, value: String) {
        self.add(Row {
            name: name.into(),
            value,
            ratio: String::new(),
            target: String::new(),
            verdict: Verdict::Info,
        });
    }

    /// A row shown as a share of a ceiling, with no target.
    pub fn compared(&mut self, name: &str, value: String, ratio: String) {
        self.add(Row {
            name: name.into(),
            value,
            ratio,
            target: String::new(),
            verdict: Verdict::Info,
        });
    }

    /// A row checked against a target.
    pub fn checked(&mut self, name: &str, value: String, ratio: String, target: &str, met: bool) {
        self.add(Row {
            name: name.into(),
            value,
            ratio,
            target: target.into(),
            verdict: if met { Verdict::Met } else { Verdict::Missed },
        });
    }

    /// The whole table as Markdown, for the terminal and the README alike.
    pub fn markdown(&self) -> String {
        let mut out = String::from(
            "| scenario | result | vs. ceiling | target | |\n| --- | ---: | ---: | --- | --- |\n",
        );
        for row in &self.rows {
            let mark = match row.verdict {
                Verdict::Met => "met",
                Verdict::Missed => "**missed**",
                Verdict::Info => "",
            };
            out.push_str(&format!(
                "| {} | {} | {} | {} | {} |\n",
                row.name, row.value, row.ratio, row.target, mark
            ));
        }
        for table in &self.appendices {
            out.push('\n');
            out.push_str(table);
        }
        out
    }

    pub fn missed(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| r.verdict == Verdict::Missed)
            .count()
    }
}

pub fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

pub fn rate(n: usize, elapsed: Duration) -> f64 {
    n as f64 / elapsed.as_secs_f64()
}

pub fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(|a, b| a.partial_cmp(b).unwrap());
    values[values.len() / 2]
}

/// The `p` quantile (0..=1) of `values`, sorting them first.
pub fn percentile(values: &mut [Duration], p: f64) -> Duration {
    values.sort();
    values[((values.len() - 1) as f64 * p).round() as usize]
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// `12,345`: thousands separated, as the README shows them.
pub fn count(value: f64) -> String {
    let digits = format!("{:.0}", value);
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `83% of C3`.
pub fn ratio(value: f64, ceiling: f64, label: &str) -> String {
    format!("{:.0}% of {label}", 100.0 * value / ceiling)
}
