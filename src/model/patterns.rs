//! Name patterns, for scopes: which job kinds, local kinds or sync targets something
//! may touch.
//!
//! A pattern is a name in which `*` stands for any run of characters, `/` and `.`
//! included: `export`, `sync.*`, `github/*`, `*`. Nothing else is special. A set of
//! patterns allows a name when an allow pattern matches it and no deny pattern does.
//! It fails closed: with no allow pattern nothing is allowed, and
//! [`Patterns::open`] (the one allow pattern `*`) allows everything.

/// Allow and deny patterns over names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Patterns {
    /// Only names one of these matches are allowed; none allows nothing.
    pub allow: Vec<String>,
    /// Names any of these matches are refused, whatever `allow` says.
    pub deny: Vec<String>,
}

impl Patterns {
    /// Everything allowed: the one allow pattern `*`.
    #[must_use]
    pub fn open() -> Self {
        Patterns {
            allow: vec!["*".to_owned()],
            deny: Vec::new(),
        }
    }

    /// Nothing allowed (the default).
    #[must_use]
    pub fn closed() -> Self {
        Self::default()
    }

    /// Whether every name is allowed: `*` among the allow patterns and no deny pattern.
    #[must_use]
    pub fn is_open(&self) -> bool {
        self.allows_any() && self.deny.is_empty()
    }

    /// Whether `*` is among the allow patterns (deny patterns aside).
    pub(crate) fn allows_any(&self) -> bool {
        self.allow.iter().any(|pattern| pattern == "*")
    }

    /// Whether `name` is allowed.
    #[must_use]
    pub fn allows(&self, name: &str) -> bool {
        self.allow.iter().any(|pattern| matches(pattern, name))
            && !self.deny.iter().any(|pattern| matches(pattern, name))
    }

    /// Whether every name that starts with `prefix` is allowed: an allow pattern
    /// matches them all and no deny pattern could match any of them. For "everything
    /// under this account" (`connector/account/`).
    #[must_use]
    pub fn allows_every_name_under(&self, prefix: &str) -> bool {
        self.allow
            .iter()
            .any(|pattern| covers_every_name_under(pattern, prefix))
            && !self
                .deny
                .iter()
                .any(|pattern| could_match_a_name_under(pattern, prefix))
    }
}

/// Whether `pattern` matches every name that starts with `prefix`: it does when it
/// matches `prefix` followed by one `*` read as a wildcard, which is when it matches
/// the literal text `prefix*` with its last `*` standing for that run (a pattern has
/// no literal `*`, so only one of its own `*` can take that place).
fn covers_every_name_under(pattern: &str, prefix: &str) -> bool {
    !prefix.contains('*') && pattern.ends_with('*') && matches(pattern, &format!("{prefix}*"))
}

/// Whether `pattern` matches at least one name that starts with `prefix`: the prefix
/// can be read through the pattern, a `*` of the pattern taking any run of it, and
/// whatever is left of the pattern then matches some ending.
fn could_match_a_name_under(pattern: &str, prefix: &str) -> bool {
    // The states are positions in the pattern; a `*` may take any run of the prefix.
    let pattern: Vec<char> = pattern.chars().collect();
    let close = |states: &mut Vec<bool>| {
        for at in 0..pattern.len() {
            if states[at] && pattern[at] == '*' {
                states[at + 1] = true;
            }
        }
    };
    let mut states = vec![false; pattern.len() + 1];
    states[0] = true;
    close(&mut states);
    for c in prefix.chars() {
        let mut next = vec![false; pattern.len() + 1];
        for at in 0..pattern.len() {
            if states[at] && (pattern[at] == '*' || pattern[at] == c) {
                // A star stays where it is (it takes c); a literal moves on.
                next[if pattern[at] == '*' { at } else { at + 1 }] = true;
            }
        }
        close(&mut next);
        states = next;
        if !states.iter().any(|&s| s) {
            return false;
        }
    }
    // Any state left can be completed: the rest of the pattern is some ending.
    states.iter().any(|&s| s)
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
    fn deny_wins_and_no_allow_allows_nothing() {
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
        assert!(!deny_only.allows("ingest") && !deny_only.allows("delete_account"));
        assert!(!Patterns::closed().allows("") && !Patterns::closed().is_open());
        assert_eq!(to_sql_glob("a?[b]*"), "a[?][[]b]*");
    }

    #[test]
    fn everything_under_a_prefix_needs_a_covering_allow_and_no_deny_that_could_match() {
        let with = |allow: &[&str], deny: &[&str]| Patterns {
            allow: allow.iter().map(|s| s.to_string()).collect(),
            deny: deny.iter().map(|s| s.to_string()).collect(),
        };
        let under = "bank/me/";
        assert!(with(&["*"], &[]).allows_every_name_under(under));
        assert!(with(&["bank/*"], &[]).allows_every_name_under(under));
        assert!(with(&["bank/me/*"], &[]).allows_every_name_under(under));
        assert!(with(&["*/me/*"], &[]).allows_every_name_under(under));
        assert!(!with(&["bank/me/ledger"], &[]).allows_every_name_under(under));
        assert!(!with(&["bank/me/l*"], &[]).allows_every_name_under(under));
        assert!(!with(&["bank/*x"], &[]).allows_every_name_under(under));
        assert!(!with(&[], &[]).allows_every_name_under(under));
        for deny in [
            "bank/me/ledger",
            "*/ledger",
            "bank/*",
            "*",
            "b*e/l*",
            "bank/me/",
        ] {
            assert!(
                !with(&["*"], &[deny]).allows_every_name_under(under),
                "deny {deny} could match a target under {under}"
            );
        }
        for deny in ["bank/you/*", "mail/*", "bank/mex/*", "bank/m"] {
            assert!(
                with(&["*"], &[deny]).allows_every_name_under(under),
                "deny {deny} matches no target under {under}"
            );
        }
        assert!(
            !with(&["*"], &[]).allows_every_name_under("b*/me/"),
            "a star in the prefix"
        );
    }

    proptest::proptest! {
        /// A name under the prefix that a deny pattern matches is only possible when
        /// the check says it could be.
        #[test]
        fn could_match_is_never_wrong_when_it_says_no(
            pattern in "[ab*/]{0,6}",
            prefix in "[ab/]{0,4}",
            rest in "[ab/]{0,4}",
        ) {
            let name = format!("{prefix}{rest}");
            if matches(&pattern, &name) {
                proptest::prop_assert!(could_match_a_name_under(&pattern, &prefix));
            }
        }
    }
}
