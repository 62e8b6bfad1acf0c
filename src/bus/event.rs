//! The events the bus carries.
//!
//! Events are frozen: built once, then only read. The bus hands them around as
//! `Arc<Event>`, so a clone is a reference-count bump however many listeners there are.

use serde::{Deserialize, Serialize};

use crate::model::{
    Health, JobId, JobLogLine, JobStatus, LocalJobId, LocalJobStatus, StartedBy, SyncOutcome,
    Timestamp,
};

/// Everything published on the [`EventBus`](super::EventBus).
///
/// Serialised with a `type` tag, so the webview can switch on `event.type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "type", rename_all = "camelCase")]
#[non_exhaustive]
pub enum Event {
    /// A durable job moved from one state to another.
    JobStateChanged(JobStateChanged),
    /// A durable job's attempt reported progress (throttled to about one event a
    /// percent).
    JobProgress(JobProgress),
    /// A durable job's handler began a step, or recorded one (or a durable sleep).
    JobStep(JobStepChanged),
    /// Lines a durable job's handler logged were stored.
    JobLogged(JobLogged),
    /// A finished durable job was deleted.
    JobDeleted(JobDeleted),
    /// A job kind was paused or resumed.
    KindPaused(KindPaused),
    /// A schedule was added, changed, paused, resumed, removed or ran (its next and
    /// last run moved).
    ScheduleChanged(ScheduleChanged),
    /// Finished jobs of a kind were deleted past retention (`prune`).
    JobsPruned(JobsPruned),
    /// An account was disconnected: its stored state removed, its targets gone.
    AccountDisconnected(AccountDisconnected),
    /// A sync run reported progress.
    SyncProgress(SyncProgress),
    /// A sync run ended.
    SyncFinished(SyncFinished),
    /// A message was stored.
    MessageStored(MessageEvent),
    /// A stored message was parsed.
    MessageParsed(MessageEvent),
    /// A parsed message was indexed for search.
    MessageIndexed(MessageEvent),
    /// A message's embedding was computed.
    MessageEmbedded(MessageEvent),
    /// A message was enriched (summaries, labels, links).
    MessageEnriched(MessageEvent),
    /// A message was marked read or unread.
    ReadStateChanged(ReadStateChanged),
    /// A component's health changed.
    PluginHealth(PluginHealth),
    /// A process-local job started or ended.
    LocalJobChanged(LocalJobChanged),
    /// A process-local job reported progress (throttled to about one event a
    /// percent).
    LocalJobProgress(LocalJobProgress),
}

impl Event {
    /// A short, stable name for logs and filters, such as `"jobStateChanged"`.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Event::JobStateChanged(_) => "jobStateChanged",
            Event::JobProgress(_) => "jobProgress",
            Event::JobStep(_) => "jobStep",
            Event::JobLogged(_) => "jobLogged",
            Event::JobDeleted(_) => "jobDeleted",
            Event::KindPaused(_) => "kindPaused",
            Event::ScheduleChanged(_) => "scheduleChanged",
            Event::JobsPruned(_) => "jobsPruned",
            Event::AccountDisconnected(_) => "accountDisconnected",
            Event::SyncProgress(_) => "syncProgress",
            Event::SyncFinished(_) => "syncFinished",
            Event::MessageStored(_) => "messageStored",
            Event::MessageParsed(_) => "messageParsed",
            Event::MessageIndexed(_) => "messageIndexed",
            Event::MessageEmbedded(_) => "messageEmbedded",
            Event::MessageEnriched(_) => "messageEnriched",
            Event::ReadStateChanged(_) => "readStateChanged",
            Event::PluginHealth(_) => "pluginHealth",
            Event::LocalJobChanged(_) => "localJobChanged",
            Event::LocalJobProgress(_) => "localJobProgress",
        }
    }
}

/// A durable job changed state. Published after the change is committed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct JobStateChanged {
    /// The job that moved.
    pub id: JobId,
    /// Its kind, so listeners can filter without reading the job.
    pub kind: String,
    /// The state before; `None` when the job was just enqueued.
    pub from: Option<JobStatus>,
    /// The state it moved to.
    pub to: JobStatus,
    /// Attempts started so far, this one included.
    pub attempt: u32,
    /// When the change happened.
    pub at: Timestamp,
}

/// A durable job's progress.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct JobProgress {
    /// The job reporting.
    pub id: JobId,
    /// Its kind, so listeners can filter by it.
    pub kind: String,
    /// The attempt reporting, from 1.
    pub attempt: u32,
    /// Steps done.
    pub done: u64,
    /// Steps in all, when known.
    pub total: Option<u64>,
    /// Whole percent done, when the total is known.
    pub percent: Option<u8>,
    /// When it was reported.
    pub at: Timestamp,
}

/// A durable job's handler began a step (`finished_at` is `None`: the step running
/// now), or recorded one, or began a durable sleep (`sleep_until`). A step begun is
/// heard from the process that runs it; a step recorded, once it is committed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct JobStepChanged {
    /// The job.
    pub id: JobId,
    /// Its kind.
    pub kind: String,
    /// The attempt running it, from 1.
    pub attempt: u32,
    /// The step's name.
    pub name: String,
    /// When its body started.
    pub started_at: Timestamp,
    /// When it was recorded; `None` while it runs.
    pub finished_at: Option<Timestamp>,
    /// A durable sleep: when it ends.
    pub sleep_until: Option<Timestamp>,
}

/// Lines a durable job's handler logged were stored: the new lines, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct JobLogged {
    /// The job.
    pub id: JobId,
    /// Its kind.
    pub kind: String,
    /// The lines stored.
    pub lines: Vec<JobLogLine>,
    /// When they were stored.
    pub at: Timestamp,
}

/// A finished durable job was deleted (by an operator, not by retention).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct JobDeleted {
    /// The job that is gone.
    pub id: JobId,
    /// Its kind.
    pub kind: String,
    /// When it was deleted.
    pub at: Timestamp,
}

/// Claims of a job kind were paused or resumed, in every process.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct KindPaused {
    /// The kind.
    pub kind: String,
    /// Whether it is paused now.
    pub paused: bool,
    /// When it changed.
    pub at: Timestamp,
}

/// A schedule changed: read it again (or find it gone).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct ScheduleChanged {
    /// The schedule's name.
    pub name: String,
    /// The job kind it enqueues, so listeners (and scopes) can filter by it.
    pub kind: String,
    /// When it changed.
    pub at: Timestamp,
}

/// Finished jobs of one kind were deleted past retention: counts and lists of
/// finished jobs of the kind changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct JobsPruned {
    /// The kind.
    pub kind: String,
    /// How many of its finished jobs went.
    pub count: u64,
    /// When.
    pub at: Timestamp,
}

/// An account was disconnected: everything stored under it removed, its sync targets
/// unregistered (they leave `sync_status`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct AccountDisconnected {
    /// The account, as `connector/account`.
    pub account: String,
    /// The targets it had, as `connector/account/name`.
    pub targets: Vec<String>,
    /// When.
    pub at: Timestamp,
}

/// `impl From<Payload> for Event` for the payloads that have a variant of their own.
macro_rules! into_event {
    ($($payload:ident),*) => {
        $(impl From<$payload> for Event {
            fn from(event: $payload) -> Self {
                Event::$payload(event)
            }
        })*
    };
}

into_event!(
    JobStateChanged,
    JobProgress,
    JobDeleted,
    KindPaused,
    ScheduleChanged,
    JobsPruned,
    AccountDisconnected,
    SyncProgress,
    SyncFinished,
    ReadStateChanged,
    PluginHealth,
    LocalJobChanged,
    LocalJobProgress
);

impl From<JobLogged> for Event {
    fn from(event: JobLogged) -> Self {
        Event::JobLogged(event)
    }
}

impl From<JobStepChanged> for Event {
    fn from(event: JobStepChanged) -> Self {
        Event::JobStep(event)
    }
}

/// A sync run's progress.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct SyncProgress {
    /// The target, as `connector/account/name`.
    pub target: String,
    /// Items done so far.
    pub done: u32,
    /// Items in all, when known.
    pub total: Option<u32>,
    /// When it was reported.
    pub at: Timestamp,
}

/// A sync run ended (a run that was skipped publishes nothing). With its outcome a
/// page can show the last sync without polling.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct SyncFinished {
    /// The target, as `connector/account/name`.
    pub target: String,
    /// How the run ended.
    pub outcome: SyncOutcome,
    /// What started it. A caller that joined a run in flight (a Refresh pressed while
    /// the loop's run went on) gets that run's outcome: this says what started it.
    pub started_by: StartedBy,
    /// When it ended.
    pub at: Timestamp,
}

/// Something happened to one message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct MessageEvent {
    /// The account, as `connector/account`.
    pub account: String,
    /// The message's id within the account.
    pub message_id: String,
    /// When it happened.
    pub at: Timestamp,
}

/// Which step of a message's life a [`MessageEvent`] reports: the variant of
/// [`Event`] it goes out as (`messageStored`, `messageParsed`, ...).
///
/// The plugin stores no messages: the app does, and says so. A sync source that
/// stored what it fetched calls [`SyncContext::message`](crate::sync::SyncContext::message);
/// a job handler or a command publishes on the bus:
///
/// ```
/// use tauri_plugin_jobs::bus::{EventBus, MessageEvent, MessageStage};
/// use tauri_plugin_jobs::clock::Timestamp;
///
/// # let bus = EventBus::new();
/// // `app.jobs().bus()` in an app.
/// bus.publish(MessageStage::Embedded.event(MessageEvent {
///     account: "mail/alice".into(),
///     message_id: "m-42".into(),
///     at: Timestamp::from_millis(1_800_000_000_000),
/// }));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum MessageStage {
    /// Stored.
    Stored,
    /// Parsed.
    Parsed,
    /// Indexed for search.
    Indexed,
    /// Its embedding computed.
    Embedded,
    /// Enriched (summaries, labels, links).
    Enriched,
}

impl MessageStage {
    /// The event saying that `message` reached this stage.
    #[must_use]
    pub fn event(self, message: MessageEvent) -> Event {
        match self {
            MessageStage::Stored => Event::MessageStored(message),
            MessageStage::Parsed => Event::MessageParsed(message),
            MessageStage::Indexed => Event::MessageIndexed(message),
            MessageStage::Embedded => Event::MessageEmbedded(message),
            MessageStage::Enriched => Event::MessageEnriched(message),
        }
    }
}

/// A message was marked read or unread.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct ReadStateChanged {
    /// The account, as `connector/account`.
    pub account: String,
    /// The message's id within the account.
    pub message_id: String,
    /// Whether it is now read.
    pub read: bool,
    /// When it happened.
    pub at: Timestamp,
}

/// A component's health changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct PluginHealth {
    /// The component, such as a sync target `connector/account/name` or `runner`.
    pub component: String,
    /// Its health now.
    pub health: Health,
    /// When it changed.
    pub at: Timestamp,
}

/// A process-local job started or ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct LocalJobChanged {
    /// The local job that started or ended.
    pub id: LocalJobId,
    /// Its kind, so listeners can filter by it.
    pub kind: String,
    /// `running` when it started, else how it ended.
    pub status: LocalJobStatus,
    /// Why it failed, when it did.
    pub error: Option<String>,
    /// When it changed.
    pub at: Timestamp,
}

/// A process-local job's progress.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
pub struct LocalJobProgress {
    /// The local job reporting.
    pub id: LocalJobId,
    /// Its kind, so listeners can filter by it.
    pub kind: String,
    /// Steps done.
    pub done: u64,
    /// Steps in all, when known.
    pub total: Option<u64>,
    /// Whole percent done, when the total is known.
    pub percent: Option<u8>,
    /// When it was reported.
    pub at: Timestamp,
}
