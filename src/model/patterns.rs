//! Name patterns, for scopes: which job kinds, local kinds or sync targets something
//! may touch.
//!
//! A pattern is a name in which `*` stands for any run of characters, `/` and `.`
//! included: `export`, `sync.*`, `github/*`, `*`. Nothing else is special. A set of
//! patterns allows a name when no deny pattern matches it and, if there is any allow
//! pattern at all, one of them does: with neither, everything is allowed.

/// Allow and deny patterns over names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Patterns {
    /// When not empty, only names one of these matches are allowed.
    pub allow: Vec<String>,
    /// Names any of these matches are refused, whatever `allow` says.
    pub deny: Vec<String>,
}

impl Patterns {
    /// Everything allowed.
    #[must_use]
    pub fn open() -> Self {
        Self::default()
    }

    /// Whether nothing is restricted: no allow and no deny pattern.
    #[must_use]
    pub fn is_open(&self) -> bool {
        self.allow.is_empty() && self.deny.is_empty()
    }

    /// Whether `name` is allowed.
    #[must_use]
    pub fn allows(&self, name: &str) -> bool {
        !self.deny.iter().any(|pattern| matches(pattern, name))
            && (self.allow.is_empty() || self.allow.iter().any(|pattern| matches(pattern, name)))
    }
}

/// Whether `pattern` (with `*` for any run of characters) matches all of `name`.
#[must_use]
pub fn matches(pattern: &str, name: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        // No `*`: the whole name.
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// The pattern as an SQLite `GLOB` pattern: `*` as is, `?` and `[` made literal.
#[must_use]
pub fn to_sql_glob(pattern: &str) -> String {
    let mut glob = String::with_capacity(pattern.len());
    for c in pattern.chars() {
        match c {
            '?' => glob.push_str("[?]"),
            '[' => glob.push_str("[[]"),
            other => glob.push(other),
        }
    }
    glob
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stars_match_any_run_and_the_rest_is_literal() {
        for (pattern, name, expected) in [
            ("export", "export", true),
            ("export", "exports", false),
            ("sync.*", "sync.mail", true),
            ("sync.*", "sync.", true),
            ("sync.*", "async.mail", false),
            ("*", "", true),
            ("github/*/notifications", "github/me/notifications", true),
            ("github/*/notifications", "github/me/issues", false),
            ("a*b*c", "abc", true),
            ("a*b*c", "aXbYc", true),
            ("a*b*c", "acb", false),
            ("ab*ab", "ab", false),
            ("k?", "k?", true),
            ("k?", "kx", false),
        ] {
            assert_eq!(matches(pattern, name), expected, "{pattern} ~ {name}");
        }
    }

    #[test]
    fn deny_wins_and_no_allow_allows_everything() {
        let open = Patterns::open();
        assert!(open.is_open() && open.allows("anything"));
        let scoped = Patterns {
            allow: vec!["sync.*".into(), "export".into()],
            deny: vec!["sync.secret".into()],
        };
        assert!(scoped.allows("export") && scoped.allows("sync.mail"));
        assert!(!scoped.allows("sync.secret") && !scoped.allows("ingest"));
        let deny_only = Patterns {
            allow: vec![],
            deny: vec!["delete_*".into()],
        };
        assert!(deny_only.allows("ingest") && !deny_only.allows("delete_account"));
        assert_eq!(to_sql_glob("a?[b]*"), "a[?][[]b]*");
    }
}
