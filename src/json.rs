//! Typed functions behind JSON: a function that takes a typed argument, called with a
//! JSON value, whose future's output comes back as JSON. Durable handlers
//! ([`Handler`](crate::runner::Handler)) and the local job kinds the webview may
//! start are both kept this way, erased to one signature per registry.

use std::future::Future;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

/// Why a typed function called through JSON gave no JSON back.
#[derive(Debug)]
pub(crate) enum JsonCallError<E> {
    /// The function itself failed.
    Failed(E),
    /// Its output could not be serialised.
    Output(serde_json::Error),
}

/// Calls `run` with `input` deserialised into `A`, or fails at once with the parser's
/// error. The future runs `run`'s future and serialises what it returns.
pub(crate) fn call_json<A, C, T, E, F, Fut>(
    run: &F,
    input: Value,
    context: C,
) -> Result<impl Future<Output = Result<Value, JsonCallError<E>>> + Send + 'static, serde_json::Error>
where
    A: DeserializeOwned,
    T: Serialize,
    F: Fn(A, C) -> Fut,
    Fut: Future<Output = Result<T, E>> + Send + 'static,
{
    let input = A::deserialize(input)?;
    let future = run(input, context);
    Ok(async move {
        let output = future.await.map_err(JsonCallError::Failed)?;
        serde_json::to_value(output).map_err(JsonCallError::Output)
    })
}
