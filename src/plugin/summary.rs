//! One line for the work running now, for a tray's tooltip or menu ("3 running,
//! 40 %"): the running jobs of some kinds, durable and local, and their progress taken
//! together as the taskbar's bar takes it.

use std::fmt;

use serde::Serialize;

use super::Jobs;
#[cfg(feature = "local")]
use crate::model::LocalJobStatus;

/// The running jobs of some kinds ([`Jobs::running_work`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct WorkSummary {
    /// Jobs running, durable (in this process) and local.
    pub running: u32,
    /// Per kind, in the order asked, those with any.
    pub kinds: Vec<(String, u32)>,
    /// The steps done over the steps in all, of the jobs that gave a total; `None`
    /// when none did.
    pub percent: Option<u8>,
}

impl WorkSummary {
    /// Whether nothing runs.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.running == 0
    }
}

/// "3 running, 40 %", "1 running", "nothing running": a tray's line; an app with words
/// of its own ("3 uploads") makes them from the fields.
impl fmt::Display for WorkSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.running, self.percent) {
            (0, _) => f.write_str("nothing running"),
            (n, Some(percent)) => write!(f, "{n} running, {percent} %"),
            (n, None) => write!(f, "{n} running"),
        }
    }
}

/// The whole percent of `parts` (steps done, of a total when known) taken together:
/// the done over the total of those with a total; `None` when none has one.
pub(crate) fn percent_of(parts: impl IntoIterator<Item = (u64, Option<u64>)>) -> Option<u64> {
    let (mut done, mut total) = (0u128, 0u128);
    for (steps, all) in parts {
        if let Some(all) = all {
            done += u128::from(steps.min(all));
            total += u128::from(all);
        }
    }
    (total > 0).then(|| u64::try_from(done * 100 / total).unwrap_or(100))
}

impl Jobs {
    /// The jobs of `kinds` running now, durable (in this process) and local, and
    /// their progress taken together: for a tray's tooltip or menu line
    /// (`summary.to_string()`: "3 running, 40 %").
    #[must_use]
    pub fn running_work(&self, kinds: &[&str]) -> WorkSummary {
        let mut counts = vec![0u32; kinds.len()];
        let mut parts = Vec::new();
        let mut count = |kind: &str, progress: (u64, Option<u64>)| {
            if let Some(at) = kinds.iter().position(|k| *k == kind) {
                counts[at] += 1;
                parts.push(progress);
            }
        };
        for (_, kind, progress) in self.runner.running_jobs() {
            count(&kind, progress);
        }
        #[cfg(feature = "local")]
        for job in self.local.list() {
            if job.status == LocalJobStatus::Running {
                count(&job.kind, (job.done, job.total));
            }
        }
        WorkSummary {
            running: counts.iter().sum(),
            kinds: kinds
                .iter()
                .zip(counts)
                .filter(|(_, n)| *n > 0)
                .map(|(kind, n)| ((*kind).to_owned(), n))
                .collect(),
            percent: percent_of(parts).map(|p| u8::try_from(p.min(100)).unwrap_or(100)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_percent_counts_the_jobs_that_gave_a_total() {
        assert_eq!(percent_of([]), None);
        assert_eq!(percent_of([(5, None)]), None);
        assert_eq!(
            percent_of([(1, Some(4)), (3, Some(6)), (7, None)]),
            Some(40)
        );
        // Done past the total counts as the total.
        assert_eq!(percent_of([(9, Some(3))]), Some(100));
        let summary = WorkSummary {
            running: 3,
            kinds: vec![("upload".into(), 3)],
            percent: Some(40),
        };
        assert_eq!(summary.to_string(), "3 running, 40 %");
        assert_eq!(WorkSummary::default().to_string(), "nothing running");
    }
}
