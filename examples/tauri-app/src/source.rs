//! The demo's sync source: a plain HTTP/1.1 GET against the loopback feed, with
//! `If-None-Match`, mapped onto the engine's results. It owns no timing.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use tauri_plugin_jobs::bus::MessageStage;
use tauri_plugin_jobs::clock::{Clock, SystemClock};
use tauri_plugin_jobs::sync::{
    retry_after, SyncContext, SyncError, SyncReport, SyncResult, SyncSource, SyncThrottle,
};

/// Fetches `http://<address>/feed`.
pub struct FeedSource {
    pub address: String,
}

struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Response {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

fn get(address: &str, path: &str, etag: Option<&str>) -> Result<Response, SyncError> {
    let mut stream = TcpStream::connect(address).map_err(SyncError::offline)?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .map_err(SyncError::offline)?;
    let mut request = format!("GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n");
    if let Some(etag) = etag {
        request.push_str(&format!("If-None-Match: {etag}\r\n"));
    }
    request.push_str("\r\n");
    stream
        .write_all(request.as_bytes())
        .map_err(SyncError::offline)?;
    let mut raw = String::new();
    stream.read_to_string(&mut raw).map_err(SyncError::failed)?;
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((raw.as_str(), ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| SyncError::failed("malformed HTTP response"))?;
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect();
    Ok(Response {
        status,
        headers,
        body: body.to_owned(),
    })
}

impl SyncSource for FeedSource {
    async fn sync(&self, ctx: &SyncContext) -> Result<SyncResult, SyncError> {
        let address = self.address.clone();
        let etag = ctx.etag().map(str::to_owned);
        let response = tokio::task::spawn_blocking(move || get(&address, "/feed", etag.as_deref()))
            .await
            .map_err(SyncError::failed)??;
        match response.status {
            304 => Ok(SyncResult::NotModified),
            200 => {
                let body: serde_json::Value =
                    serde_json::from_str(&response.body).map_err(SyncError::failed)?;
                let changed = body["changed"].as_u64().unwrap_or(0);
                let version = body["version"].as_u64().unwrap_or(0);
                for item in 1..=changed {
                    // (An app stores the item here.) Pages hear each one stored.
                    ctx.message(MessageStage::Stored, format!("v{version}-{item}"));
                    ctx.progress(item as u32, Some(changed as u32));
                }
                let mut report = SyncReport::changed(changed);
                if let Some(etag) = response.header("etag") {
                    report = report.with_etag(etag);
                }
                Ok(SyncResult::Updated(report))
            }
            // A rate limit: every run waits, Refresh too (it is told until when).
            429 | 503 => {
                let delay = response
                    .header("retry-after")
                    .and_then(|value| retry_after(value, SystemClock.now()))
                    .unwrap_or(Duration::from_secs(60));
                Ok(SyncResult::Throttled(SyncThrottle::quota(delay)))
            }
            status => Err(SyncError::failed(format!(
                "the feed answered HTTP {status}"
            ))),
        }
    }
}
