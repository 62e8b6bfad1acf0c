//! The local job kinds an app lets the webview start by name: each a typed body kept
//! behind JSON (arguments in, value out), exclusive or not. Compared with
//! [`LocalJobs::spawn`](super::LocalJobs::spawn), which takes a closure from Rust,
//! a registered kind is what a command can start from a name and JSON arguments.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use super::{BoxError, JobResult, LocalJobContext, LocalJobId, LocalJobs, Observer};
use crate::error::{Error, Result};
use crate::json::{call_json, without_values, JsonCallError};
use crate::typescript::RustType;

type Body = dyn Fn(
        Value,
        LocalJobContext,
    ) -> Pin<Box<dyn Future<Output = std::result::Result<Value, BoxError>> + Send>>
    + Send
    + Sync;

#[derive(Clone)]
struct LocalKind {
    body: Arc<Body>,
    exclusive: bool,
    /// The Rust types of the arguments and the result, for the TypeScript declarations.
    types: (RustType, RustType),
}

/// The kinds registered by name.
#[derive(Clone, Default)]
pub(crate) struct LocalKinds {
    kinds: HashMap<String, LocalKind>,
}

impl LocalKinds {
    /// Registers `run` as `kind`; with `exclusive`, one job of the kind at a time.
    /// Registering a kind again replaces it.
    pub(crate) fn register<A, T, F, Fut>(&mut self, kind: String, exclusive: bool, run: F)
    where
        A: DeserializeOwned + Send + 'static,
        T: Serialize + Send + 'static,
        F: Fn(A, LocalJobContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = std::result::Result<T, BoxError>> + Send + 'static,
    {
        let run = Arc::new(run);
        let body = move |args: Value, ctx: LocalJobContext| {
            let run = run.clone();
            // The body's closure runs inside the job's future, never on the caller.
            let future: Pin<Box<dyn Future<Output = _> + Send>> = Box::pin(async move {
                let output = call_json(&*run, args, ctx).map_err(|error| {
                    format!("invalid args: {}", without_values(&error.to_string()))
                })?;
                output.await.map_err(|error| match error {
                    JsonCallError::Failed(error) => error,
                    JsonCallError::Output(error) => BoxError::from(error),
                })
            });
            future
        };
        self.kinds.insert(
            kind,
            LocalKind {
                body: Arc::new(body),
                exclusive,
                types: (RustType::traced::<A>(), RustType::named::<T>()),
            },
        );
    }

    /// Starts a job of the registered `kind` with `args`; its id, and what its body
    /// returns.
    pub(crate) fn spawn_awaitable(
        &self,
        jobs: &LocalJobs,
        kind: String,
        args: Value,
    ) -> Result<(LocalJobId, JobResult<Value>)> {
        self.run(jobs, kind, args, None)
    }

    /// The same, with `observer` hearing the job's progress and its end.
    pub(crate) fn run(
        &self,
        jobs: &LocalJobs,
        kind: String,
        args: Value,
        observer: Option<Observer>,
    ) -> Result<(LocalJobId, JobResult<Value>)> {
        let registered = self.get(&kind)?;
        let body = move |ctx| (registered.body)(args, ctx);
        jobs.spawn_json(kind, registered.exclusive, body, observer)
    }

    /// Every kind with the Rust types of its arguments and result.
    pub(crate) fn declared(&self) -> Vec<(String, RustType, RustType)> {
        self.kinds
            .iter()
            .map(|(kind, registered)| (kind.clone(), registered.types.0, registered.types.1))
            .collect()
    }

    fn get(&self, kind: &str) -> Result<LocalKind> {
        self.kinds.get(kind).cloned().ok_or_else(|| {
            Error::invalid_argument("kind", format!("no local job kind {kind:?} is registered"))
        })
    }
}
