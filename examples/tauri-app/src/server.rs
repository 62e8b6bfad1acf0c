//! A small HTTP feed on loopback that behaves like a real API: ETags and 304s,
//! a 429 with `Retry-After` while it rate-limits, and 500s when told to fail. The demo's sync
//! source talks to it; nothing leaves the machine.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The feed's switches, shared with the app's commands.
#[derive(Debug, Default)]
pub struct Feed {
    /// Bumped when the feed's content changes.
    pub version: AtomicU64,
    /// Answer 500 to every request.
    pub failing: AtomicBool,
    /// Answer 429 with `Retry-After: 3` to every request: a rate limit.
    pub throttling: AtomicBool,
}

/// Starts the server on a free loopback port; returns its address and switches.
pub fn start() -> std::io::Result<(String, Arc<Feed>)> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let address = format!("127.0.0.1:{}", listener.local_addr()?.port());
    let feed = Arc::new(Feed {
        version: AtomicU64::new(1),
        failing: AtomicBool::new(false),
        throttling: AtomicBool::new(false),
    });
    let server_feed = feed.clone();
    std::thread::Builder::new()
        .name("demo-feed".into())
        .spawn(move || {
            for stream in listener.incoming().flatten() {
                let feed = server_feed.clone();
                std::thread::spawn(move || {
                    let _ = answer(stream, &feed);
                });
            }
        })?;
    // New items arrive every 20 seconds.
    let ticking = feed.clone();
    std::thread::Builder::new()
        .name("demo-feed-clock".into())
        .spawn(move || loop {
            std::thread::sleep(Duration::from_secs(20));
            ticking.version.fetch_add(1, Ordering::Relaxed);
        })?;
    Ok((address, feed))
}

fn answer(mut stream: TcpStream, feed: &Feed) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut if_none_match = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.trim().eq_ignore_ascii_case("if-none-match") {
                if_none_match = Some(value.trim().to_owned());
            }
        }
    }
    let version = feed.version.load(Ordering::Relaxed);
    let etag = format!("\"v{version}\"");
    let response = if feed.failing.load(Ordering::Relaxed) {
        "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            .to_owned()
    } else if feed.throttling.load(Ordering::Relaxed) {
        "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 3\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_owned()
    } else if if_none_match.as_deref() == Some(etag.as_str()) {
        format!("HTTP/1.1 304 Not Modified\r\nETag: {etag}\r\nConnection: close\r\n\r\n")
    } else {
        // Each version changes a few items.
        let body = format!("{{\"version\":{version},\"changed\":{}}}", 1 + version % 5);
        format!(
            "HTTP/1.1 200 OK\r\nETag: {etag}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
    };
    stream.write_all(response.as_bytes())
}
