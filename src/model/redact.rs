//! Making error text safe to store: secrets redacted, length capped.
//!
//! `last_error` ends up in `raw.db`, in logs and in events shown by the webview, so what
//! a handler's error happens to quote (a URL with credentials, an `Authorization`
//! header, an API key in a query string) must not survive into it. The rules err on the
//! side of redacting too much.

use std::sync::LazyLock;

use regex_lite::{Captures, Regex};

/// The most characters (not bytes) an error keeps.
pub const MAX_ERROR_CHARS: usize = 500;

const REDACTED: &str = "[REDACTED]";

/// Words that make a key name a secret.
const SECRET_WORDS: &str = r"(?:password|passwd|passphrase|passcode|pwd|secret|token|api[_\-]?key|access[_\-]?key|private[_\-]?key|credential|session|cookie|auth)";

/// Redacts secrets in `text`, then cuts it to [`MAX_ERROR_CHARS`] characters.
///
/// ```
/// use tauri_plugin_jobs::queue::sanitize_error;
///
/// let safe = sanitize_error("GET https://bob:hunter2@example.com/?api_key=abc123 failed");
/// assert!(!safe.contains("hunter2"));
/// assert!(!safe.contains("abc123"));
/// ```
#[must_use]
pub fn sanitize_error(text: &str) -> String {
    truncate_chars(&redact(text), MAX_ERROR_CHARS)
}

/// Redacts secrets in `text`, keeping its length unbounded.
#[must_use]
pub fn redact(text: &str) -> String {
    if text.is_ascii() && !might_hold_a_secret(text) {
        return text.to_owned();
    }
    redact_by_rules(text)
}

/// Every rule of [`redact`], in order.
fn redact_by_rules(text: &str) -> String {
    static RULES: LazyLock<[Regex; 8]> = LazyLock::new(|| {
        [
            // Credentials in URLs: scheme://user:password@host or scheme://token@host,
            // up to the last `@` before the path, so a password may hold `@` itself.
            Regex::new(r"(?i)\b([a-z][a-z0-9+.\-]*://)[^/\s]*@").expect("valid regex"),
            // Authorization headers and bearer/basic tokens.
            Regex::new(
                r"(?i)\b(authorization\s*[:=]\s*)(?:(?:bearer|basic|token|digest)\s+)?[^\s,;]+",
            )
            .expect("valid regex"),
            Regex::new(r"(?i)\b(bearer|basic)\s+[a-z0-9\-._~+/]+=*").expect("valid regex"),
            // "key": "value" in JSON, where the key names a secret: the whole string;
            // also inside JSON quoted once or twice more (`{\"password\":\"...\"}`),
            // as an error that debug-prints a body shows it.
            Regex::new(&format!(
                r#"(?i)(\\*"[a-z0-9_.\-]*{SECRET_WORDS}[a-z0-9_.\-]*\\*"\s*:\s*)(\\*")((?:[^"\\]|\\[^"\\])*)\\*""#
            ))
            .expect("valid regex"),
            // Written as prose (`password: correct horse`), a password or passphrase
            // may hold spaces: everything up to the end of its line or the next
            // separator. (`password=x` is a query-style pair, ended by a space.)
            Regex::new(r#"(?i)\b((?:password|passwd|passphrase|passcode|pwd)\s*:\s*)([^\r\n,;&"']+)"#)
                .expect("valid regex"),
            // key=value and key: value where the key names a secret.
            Regex::new(&format!(
                r#"(?i)([a-z0-9_.\-]*{SECRET_WORDS}[a-z0-9_.\-]*"?\s*[:=]\s*"?)([^\s&,;"'}}]+)"#
            ))
            .expect("valid regex"),
            // JSON web tokens.
            Regex::new(r"\beyJ[a-zA-Z0-9_\-]+\.[a-zA-Z0-9_\-]+\.[a-zA-Z0-9_\-]*")
                .expect("valid regex"),
            // AWS access key ids.
            Regex::new(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b").expect("valid regex"),
        ]
    });
    static LONG_KEY: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"[A-Za-z0-9+/_\-]{32,}={0,2}").expect("valid regex"));

    let [url, authorization, bearer, json_pair, phrase, pair, jwt, aws] = &*RULES;
    let text = url.replace_all(text, format!("${{1}}{REDACTED}@"));
    let text = authorization.replace_all(&text, format!("${{1}}{REDACTED}"));
    let text = bearer.replace_all(&text, format!("${{1}} {REDACTED}"));
    // The string closes the way it opened, escaped or not.
    let text = json_pair.replace_all(&text, format!("${{1}}${{2}}{REDACTED}${{2}}"));
    let text = phrase.replace_all(&text, |caps: &Captures<'_>| {
        if caps[2].starts_with(REDACTED) {
            caps[0].to_owned()
        } else {
            format!("{}{REDACTED}", &caps[1])
        }
    });
    let text = pair.replace_all(&text, |caps: &Captures<'_>| {
        if caps[2].starts_with(REDACTED) || caps[2].starts_with('[') {
            caps[0].to_owned()
        } else {
            format!("{}{REDACTED}", &caps[1])
        }
    });
    let text = jwt.replace_all(&text, REDACTED);
    let text = aws.replace_all(&text, REDACTED);
    LONG_KEY
        .replace_all(&text, |caps: &Captures<'_>| {
            let candidate = &caps[0];
            if looks_like_key(candidate) {
                REDACTED.to_owned()
            } else {
                candidate.to_owned()
            }
        })
        .into_owned()
}

/// Whether any rule of [`redact`] could match the ASCII `text`: each needs one of
/// these (a URL with `@`, a secret word, a token's or key's prefix, a long run of key
/// characters). Most text (a log line, an error without secrets) has none, and is
/// spared nine regular expressions. Text with other than ASCII takes the rules whole:
/// their case-insensitive matching folds more than ASCII lowercase does.
fn might_hold_a_secret(text: &str) -> bool {
    const WORDS: [&str; 11] = [
        "bearer",
        "basic",
        "pass",
        "pwd",
        "secret",
        "token",
        "key",
        "credential",
        "session",
        "cookie",
        "auth",
    ];
    let lower = text.to_ascii_lowercase();
    (text.contains("://") && text.contains('@'))
        || WORDS.iter().any(|word| lower.contains(word))
        || text.contains("eyJ")
        || text.contains("AKIA")
        || text.contains("ASIA")
        || longest_key_run(text) >= 32
}

/// The longest run of characters a key is made of (`LONG_KEY`'s class).
fn longest_key_run(text: &str) -> usize {
    let mut longest = 0;
    let mut run = 0;
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'+' | b'/' | b'_' | b'-') {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    longest
}

/// A long run of key characters is a key when it is all hex, or mixes digits with
/// letters of both cases (paths and words rarely do).
fn looks_like_key(candidate: &str) -> bool {
    let body = candidate.trim_end_matches('=');
    let hex = body.chars().all(|c| c.is_ascii_hexdigit());
    let digits = body.chars().any(|c| c.is_ascii_digit());
    let upper = body.chars().any(|c| c.is_ascii_uppercase());
    let lower = body.chars().any(|c| c.is_ascii_lowercase());
    hex || (digits && upper && lower) || (digits && (upper || lower) && !body.contains('/'))
}

/// Cuts `text` to at most `max` characters, marking the cut with `…`.
pub(crate) fn truncate_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_owned(),
        Some(_) => {
            let keep = max.saturating_sub(1);
            let end = text.char_indices().nth(keep).map_or(text.len(), |(i, _)| i);
            format!("{}…", &text[..end])
        }
    }
}

#[cfg(test)]
mod tests {

    /// The quick look never spares text a rule would have changed: random ASCII text
    /// made of near misses (words that resemble secret words, separators, fragments of
    /// URLs, tokens and keys), every case the look lets through left alone by the rules.
    #[test]
    fn the_quick_look_never_skips_what_a_rule_would_redact() {
        let pieces = [
            "pas",
            "word",
            "pw",
            "d",
            "sec",
            "ret",
            "tok",
            "en",
            "ke",
            "y",
            "api",
            "_",
            "-",
            "cred",
            "ential",
            "sess",
            "ion",
            "coo",
            "kie",
            "au",
            "th",
            "bear",
            "er",
            "bas",
            "ic",
            "://",
            "@",
            "http",
            "eyJ",
            "ey",
            "J",
            "AKI",
            "A",
            "ASI",
            "=",
            ":",
            "\"",
            " ",
            ",",
            ";",
            "&",
            "{",
            "}",
            "0123456789",
            "abcdef",
            "ABCDEF",
            "/",
            "+",
            ".",
            "x",
            "Q",
            "\n",
        ];
        let mut state = 0x5eed_u64;
        let mut next = |below: usize| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((state >> 33) as usize) % below
        };
        let mut spared = 0;
        for _ in 0..3_000 {
            let text: String = (0..next(24)).map(|_| pieces[next(pieces.len())]).collect();
            if !might_hold_a_secret(&text) {
                spared += 1;
                assert_eq!(
                    redact_by_rules(&text),
                    text,
                    "the rules would change {text:?}"
                );
            }
            assert_eq!(redact(&text), redact_by_rules(&text), "{text:?}");
        }
        assert!(spared > 200, "{spared} texts took the quick path");
    }
    use super::*;

    /// (input, secret that must not survive, text that must survive)
    const CORPUS: &[(&str, &str, &str)] = &[
        (
            "Authorization: Bearer abc.def-ghi",
            "abc.def-ghi",
            "Authorization",
        ),
        (
            "header authorization=Basic dXNlcjpwYXNz",
            "dXNlcjpwYXNz",
            "header",
        ),
        (
            "sent bearer eyJhbGciOi.J9.x to server",
            "eyJhbGciOi",
            "to server",
        ),
        (
            "https://alice:s3cr3t@db.example.com/x",
            "s3cr3t",
            "db.example.com",
        ),
        (
            "git clone https://ghp_abcdefghijklmnop@github.com/o/r",
            "ghp_abcdefghijklmnop",
            "github.com/o/r",
        ),
        ("GET /v1?api_key=k-12345&page=2", "k-12345", "page=2"),
        ("GET /v1?apikey=zzz9&page=2", "zzz9", "page=2"),
        (
            "login failed password=hunter2 for bob",
            "hunter2",
            "for bob",
        ),
        ("{\"password\": \"correct horse\"}", "horse", "password"),
        (
            "{\"access_token\":\"ya29.a0Af\"}",
            "ya29.a0Af",
            "access_token",
        ),
        (
            "client_secret: shh-its-secret",
            "shh-its-secret",
            "client_secret",
        ),
        ("token=abc; path=/", "abc", "path=/"),
        ("Cookie: session=9f8e7d6c", "9f8e7d6c", "Cookie"),
        (
            "key 0123456789abcdef0123456789abcdef leaked",
            "0123456789abcdef0123456789abcdef",
            "leaked",
        ),
        (
            "sk-proj-AbCdEf1234567890GhIjKl1234567890 denied",
            "AbCdEf1234567890GhIjKl1234567890",
            "denied",
        ),
        (
            "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig_nature ok",
            "eyJzdWIiOiIxIn0",
            "ok",
        ),
        (
            "aws AKIAIOSFODNN7EXAMPLE used",
            "AKIAIOSFODNN7EXAMPLE",
            "used",
        ),
        (
            "base64 QWxhZGRpbjpvcGVuIHNlc2FtZQ0KQWxhZGRpbjpvcGVu== end",
            "QWxhZGRpbjpvcGVuIHNlc2FtZQ0K",
            "end",
        ),
        (
            r#"body: {\"password\":\"hunter2\",\"user\":\"bob\"}"#,
            "hunter2",
            "bob",
        ),
        (
            r#"Error(\"{\\\"api_key\\\":\\\"zz-top-99\\\"}\")"#,
            "zz-top-99",
            "Error",
        ),
        (
            "connect https://bob:p@ssw0rd@db.example.com/x failed",
            "ssw0rd",
            "db.example.com/x failed",
        ),
        ("unlock passphrase=swordfish now", "swordfish", "now"),
        (
            "header api-key: k9-secret-value sent",
            "k9-secret-value",
            "sent",
        ),
        (
            "login password: correct horse battery staple\nnext line",
            "battery staple",
            "next line",
        ),
    ];

    #[test]
    fn corpus_secrets_are_redacted() {
        for (input, secret, kept) in CORPUS {
            let out = redact(input);
            assert!(
                !out.contains(secret),
                "{input:?} leaked {secret:?}: {out:?}"
            );
            assert!(out.contains(kept), "{input:?} lost {kept:?}: {out:?}");
            assert!(out.contains(REDACTED), "{input:?}: {out:?}");
        }
    }

    #[test]
    fn ordinary_errors_are_left_alone() {
        for text in [
            "connection refused (os error 111)",
            "file /home/user/projects/tauri-plugin-jobs/src/queue/mod.rs not found",
            "HTTP 503 Service Unavailable after 3 retries",
            "job 42 of kind embed timed out",
        ] {
            assert_eq!(redact(text), text);
        }
    }

    #[test]
    fn long_text_is_cut_on_a_char_boundary() {
        let text = "é".repeat(600);
        let out = sanitize_error(&text);
        assert_eq!(out.chars().count(), MAX_ERROR_CHARS);
        assert!(out.ends_with('…'));
        assert_eq!(sanitize_error("short"), "short");
        let exact = "word ".repeat(MAX_ERROR_CHARS / 5);
        assert_eq!(sanitize_error(&exact), exact);
    }

    #[test]
    fn redaction_happens_before_the_cut() {
        let text = format!("{} password=hunter2", "x ".repeat(240));
        let out = sanitize_error(&text);
        assert!(!out.contains("hunter2"));
    }
}
