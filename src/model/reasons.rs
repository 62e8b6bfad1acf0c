//! Why a job ended when its own handler did not end it: the texts the queue writes
//! into `last_error` when a job is cancelled because a job it waited for failed or was
//! cancelled, or because its workflow was cancelled; and how each reads for a caller
//! that may not see the job it names (a window scoped to other kinds).
//!
//! Each text names the other job with its kind, so that a reader's scope can be
//! checked against the text alone, without a read of that job (which may be gone by
//! then). Writer and reader live here together, so they cannot drift apart; compared
//! with [`redact`](super::redact), which hides secrets from everyone, this hides a
//! job from those who may not see it.

use super::{JobId, JobStatus, Patterns};

const WAITED_FOR: &str = "the job it waited for, #";
const FAILED: &str = "), failed";
const WAS_CANCELLED: &str = "), was cancelled";
const WORKFLOW: &str = "its workflow, #";
const WORKFLOW_CANCELLED: &str = "), was cancelled";
/// What releases before the kind was in the text wrote for a cancelled workflow.
const OLD_WORKFLOW: &str = "its workflow (#";

/// Why a job waiting for `dep` (of `kind`), which ended as `status`, is cancelled:
/// "the job it waited for, #12 (embed), failed".
pub(crate) fn dependency_ended(dep: JobId, kind: &str, status: JobStatus) -> String {
    let end = if status == JobStatus::Cancelled {
        WAS_CANCELLED
    } else {
        FAILED
    };
    format!("{WAITED_FOR}{} ({kind}{end}", dep.raw())
}

/// Why a job of the workflow under `parent` (of `kind`) is cancelled: "its workflow,
/// #3 (import), was cancelled".
pub(crate) fn workflow_cancelled(parent: JobId, kind: &str) -> String {
    format!("{WORKFLOW}{} ({kind}{WORKFLOW_CANCELLED}", parent.raw())
}

/// `text` as a reader reads it who may see the kinds `visible` allows: `None` when it
/// reads as it is (it is not one of these texts, or names a job of a kind the reader
/// may see), else the same words without the job.
pub(crate) fn as_seen(text: &str, visible: &Patterns) -> Option<String> {
    if let Some((kind, end)) = named(text, WAITED_FOR, &[FAILED, WAS_CANCELLED]) {
        if visible.allows(kind) {
            return None;
        }
        let what = if end == FAILED {
            "failed"
        } else {
            "was cancelled"
        };
        return Some(format!(
            "a job it waited for, one this window cannot see, {what}"
        ));
    }
    if let Some((kind, _)) = named(text, WORKFLOW, &[WORKFLOW_CANCELLED]) {
        return (!visible.allows(kind)).then(|| "its workflow was cancelled".to_owned());
    }
    // The text of earlier releases names no kind: only a reader who sees every kind
    // is sure to see that job.
    if text.starts_with(OLD_WORKFLOW) && text.ends_with(") was cancelled") {
        return (!visible.is_open()).then(|| "its workflow was cancelled".to_owned());
    }
    None
}

/// The kind named in `text` of the form `{start}{id} ({kind}{end})` for one of `ends`,
/// with the end it has.
fn named<'t>(text: &'t str, start: &str, ends: &[&'static str]) -> Option<(&'t str, &'static str)> {
    let rest = text.strip_prefix(start)?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let rest = rest[digits..].strip_prefix(" (")?;
    if digits == 0 {
        return None;
    }
    // The end is what this module wrote last, whatever the kind holds.
    ends.iter()
        .find_map(|end| Some((rest.strip_suffix(end)?, *end)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn only(kind: &str) -> Patterns {
        Patterns {
            allow: vec![kind.to_owned()],
            deny: Vec::new(),
        }
    }

    #[test]
    fn each_text_reads_as_written_for_a_reader_who_sees_its_job() {
        let failed = dependency_ended(JobId::from_raw(3), "remote", JobStatus::Failed);
        assert_eq!(failed, "the job it waited for, #3 (remote), failed");
        assert_eq!(as_seen(&failed, &only("remote")), None);
        let cancelled = dependency_ended(JobId::from_raw(4), "remote", JobStatus::Cancelled);
        assert_eq!(
            cancelled,
            "the job it waited for, #4 (remote), was cancelled"
        );
        assert_eq!(as_seen(&cancelled, &only("remote")), None);
        let workflow = workflow_cancelled(JobId::from_raw(1), "import");
        assert_eq!(workflow, "its workflow, #1 (import), was cancelled");
        assert_eq!(as_seen(&workflow, &only("import")), None);
    }

    #[test]
    fn a_reader_who_may_not_see_the_job_reads_no_id_nor_kind() {
        let cases = [
            (
                dependency_ended(JobId::from_raw(3), "remote", JobStatus::Failed),
                "a job it waited for, one this window cannot see, failed",
            ),
            (
                dependency_ended(JobId::from_raw(3), "remote", JobStatus::Cancelled),
                "a job it waited for, one this window cannot see, was cancelled",
            ),
            (
                workflow_cancelled(JobId::from_raw(1), "remote"),
                "its workflow was cancelled",
            ),
            (
                "its workflow (#1) was cancelled".to_owned(),
                "its workflow was cancelled",
            ),
        ];
        for (text, seen) in cases {
            assert_eq!(
                as_seen(&text, &only("local")).as_deref(),
                Some(seen),
                "{text}"
            );
        }
        // The text of an earlier release stays whole for a reader who sees everything.
        assert_eq!(
            as_seen("its workflow (#1) was cancelled", &Patterns::open()),
            None
        );
    }

    #[test]
    fn a_kind_with_the_texts_own_words_in_it_is_read_whole() {
        let kind = "odd), failed (x";
        let text = dependency_ended(JobId::from_raw(9), kind, JobStatus::Cancelled);
        assert_eq!(as_seen(&text, &only(kind)), None);
        assert!(as_seen(&text, &only("local")).is_some());
    }

    #[test]
    fn other_texts_read_as_they_are() {
        for text in [
            "boom",
            "the job it waited for, #x (remote), failed",
            "the job it waited for, # (remote), failed",
            "the job it waited for, #3 (remote), exploded",
            "the worker died 3 times in a row: its lease ran out without a renewal each time",
        ] {
            assert_eq!(as_seen(text, &only("local")), None, "{text}");
        }
    }
}
