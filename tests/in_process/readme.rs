//! The README's and the guide's (`docs/`) words never rot:
//!
//! - every ```rust block appears, line for line, in a file that is compiled: the quick
//!   start's additions in `ci/quickstart` (a create-tauri-app project that
//!   `scripts/quickstart.sh` builds from the packaged crate and runs), the guide's
//!   snippets in `examples/guide.rs` (built by `cargo test`, run by `cargo run
//!   --example guide`), the test kit's examples in `tests/in_process/testing_kit.rs`;
//! - every ```ts block is in the quick start's page or in
//!   `examples/tauri-app/src-ui/guide.ts` (both type-checked by `npm run typecheck`),
//!   every ```html block in the quick start's page, every ```json block parses, every
//!   ```toml block is the quick start's dependency line, a dependency line naming the
//!   crate's own features, `ci/features`' `.cargo/config.toml` or a `config.toml` the
//!   plugin takes, every ```sh line runs a script that exists or a tool named here;
//! - every relative link resolves, anchors included;
//! - the tables of error codes and sync outcomes list exactly what the bindings define,
//!   and the README links to a page for each task the guide promises.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The README and every page of the guide, by path from the root.
fn pages() -> Vec<(String, String)> {
    let mut pages = vec![("README.md".to_owned(), read("README.md"))];
    let mut guide: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    guide.sort();
    for path in guide {
        let name = format!("docs/{}", path.file_name().unwrap().to_string_lossy());
        pages.push((name.clone(), read(&name)));
    }
    assert!(pages.len() >= 20, "the guide has {} pages", pages.len());
    pages
}

/// The lines of `text`, trimmed, without empty ones: indentation may differ.
fn lines(text: &str) -> Vec<&str> {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect()
}

/// A fenced block: its language (the first word after the fence) and its body.
struct Block {
    lang: String,
    body: String,
}

/// The fenced blocks of `text` (indented ones too).
fn blocks(text: &str) -> Vec<Block> {
    let mut found = Vec::new();
    let mut open: Option<(String, Vec<&str>)> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        match (&mut open, trimmed.strip_prefix("```")) {
            (None, Some(info)) => {
                let lang = info.split([',', ' ']).next().unwrap_or("").to_owned();
                open = Some((lang, Vec::new()));
            }
            (Some(_), Some(rest)) if rest.trim().is_empty() => {
                let (lang, body) = open.take().unwrap();
                found.push(Block {
                    lang,
                    body: body.join("\n"),
                });
            }
            (Some((_, body)), _) => body.push(line),
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "a block is not closed");
    found
}

/// A dependency line other than the quick start's names only features the crate has,
/// and turns the defaults off only as `ci/features` (which tests that build) does.
fn a_dependency_line_the_crate_takes(line: &str, at: &str) {
    let parsed: toml::Table = line.parse().unwrap_or_else(|error| panic!("{at}: {error}"));
    let dependency = &parsed["tauri-plugin-jobs"];
    let manifest: toml::Table = read("Cargo.toml").parse().unwrap();
    let features = manifest["features"].as_table().unwrap();
    for feature in dependency
        .get("features")
        .and_then(|list| list.as_array())
        .into_iter()
        .flatten()
    {
        let feature = feature.as_str().unwrap();
        assert!(
            features.contains_key(feature),
            "{at}: no feature {feature:?}"
        );
    }
    if let Some(defaults) = dependency.get("default-features") {
        assert_eq!(defaults.as_bool(), Some(false), "{at}");
        assert!(
            read("ci/features/Cargo.toml").contains("default-features = false"),
            "{at}: nothing tests the crate without its default features"
        );
    }
}

/// Whether `block` is, line for line, in one of `files`.
fn is_in(block: &str, files: &[String]) -> bool {
    let block = lines(block);
    files.iter().any(|file| {
        lines(file)
            .windows(block.len())
            .any(|window| window == block.as_slice())
    })
}

#[test]
fn every_block_is_compiled_type_checked_or_read() {
    let rust: Vec<String> = [
        "ci/quickstart/src-tauri/src/lib.rs",
        "examples/guide.rs",
        "tests/in_process/testing_kit.rs",
    ]
    .iter()
    .map(|path| read(path))
    .collect();
    let ts: Vec<String> = [
        "ci/quickstart/src/main.ts",
        "examples/tauri-app/src-ui/guide.ts",
    ]
    .iter()
    .map(|path| read(path))
    .collect();
    let html = vec![read("ci/quickstart/index.html")];
    let dependency = read("ci/quickstart/src-tauri/Cargo.toml");
    let mut counts = std::collections::BTreeMap::<String, usize>::new();
    for (page, text) in pages() {
        for (n, block) in blocks(&text).iter().enumerate() {
            let at = format!("{page}, block {} ({})", n + 1, block.lang);
            *counts.entry(block.lang.clone()).or_default() += 1;
            match block.lang.as_str() {
                "rust" => assert!(
                    is_in(&block.body, &rust),
                    "{at} is in no compiled file:\n{}",
                    block.body
                ),
                "ts" => assert!(
                    is_in(&block.body, &ts),
                    "{at} is in no type-checked file:\n{}",
                    block.body
                ),
                "html" => assert!(is_in(&block.body, &html), "{at}:\n{}", block.body),
                "json" => {
                    serde_json::from_str::<serde_json::Value>(&block.body)
                        .unwrap_or_else(|error| panic!("{at}: {error}"));
                }
                "toml" => {
                    let line = block.body.trim();
                    if line.starts_with("[env]") {
                        // An app's .cargo/config.toml: the one ci/features builds with.
                        assert!(
                            read("ci/features/.cargo/config.toml").contains(line),
                            "{at} is not what ci/features builds with:\n{line}"
                        );
                    } else if let Some(settings) = line.strip_prefix("[profile.release]") {
                        // The release profile the sizes were measured under:
                        // bench-compare/size's `small` profile, setting for setting.
                        let measured = read("bench-compare/size/Cargo.toml");
                        let small = measured
                            .split("[profile.small]")
                            .nth(1)
                            .unwrap_or_else(|| panic!("{at}: no small profile to compare"));
                        for setting in lines(settings) {
                            assert!(
                                small.lines().any(|l| l.trim() == setting),
                                "{at}: {setting} is not what scripts/size.sh measured"
                            );
                        }
                    } else if !line.starts_with("tauri-plugin-jobs =") {
                        tauri_plugin_jobs::config::Config::parse(&block.body, "config.toml")
                            .unwrap_or_else(|error| panic!("{at}: {error}"));
                    } else if !dependency.contains(line) {
                        a_dependency_line_the_crate_takes(line, &at);
                    }
                }
                "sh" => {
                    for command in lines(&block.body) {
                        let word = command.split_whitespace().next().unwrap();
                        let known = ["npm", "cargo", "npx", "python3", "git"].contains(&word)
                            || (word.starts_with("scripts/") && root().join(word).is_file())
                            || word.contains('=');
                        assert!(known, "{at}: {command}");
                    }
                }
                // Output and pictures of a layout: read, not run.
                "text" | "" => {}
                other => panic!("{at}: a block of {other:?}, which nothing checks"),
            }
        }
    }
    for (lang, at_least) in [("rust", 12), ("ts", 6), ("toml", 4), ("json", 2)] {
        assert!(
            counts.get(lang).copied().unwrap_or(0) >= at_least,
            "{counts:?}"
        );
    }
}

/// A heading's anchor, as GitHub makes it.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '-' || *c == '_' || *c == ' ')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of the headings of `text` (outside blocks).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fence = !fence;
        } else if !fence && line.starts_with('#') {
            found.insert(slug(line.trim_start_matches('#')));
        }
    }
    found
}

/// The targets of the Markdown links of `text`: `[words](target)`.
fn links(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let Some(end) = after.find(')') else { break };
        found.push(after[..end].to_owned());
        rest = &after[end..];
    }
    found
}

#[test]
fn every_relative_link_resolves() {
    let pages = pages();
    let mut checked = 0;
    for (page, text) in &pages {
        let dir = Path::new(page).parent().unwrap();
        for target in links(text) {
            if target.starts_with("http://") || target.starts_with("https://") {
                continue;
            }
            let (path, anchor) = match target.split_once('#') {
                Some((path, anchor)) => (path, Some(anchor)),
                None => (target.as_str(), None),
            };
            let file = if path.is_empty() {
                PathBuf::from(page)
            } else {
                dir.join(path)
            };
            assert!(root().join(&file).exists(), "{page}: {target} is not there");
            if let Some(anchor) = anchor {
                let text = read(file.to_str().unwrap());
                assert!(
                    anchors(&text).contains(anchor),
                    "{page}: {target}: no heading makes #{anchor}"
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 60, "{checked} links");
}

#[test]
fn the_readme_links_a_page_for_each_task_the_guide_promises() {
    let readme = read("README.md");
    let targets = links(&readme);
    for task in [
        "docs/sync.md",                                   // make a source fail
        "docs/config.md",                                 // a rate limit in config.toml
        "docs/when-jobs-run.md#pretend-to-be-on-battery", // pretend to be on battery
        "docs/workflows.md#a-failed-pieces-error",        // a failed piece's error
        "docs/sync.md#every-policy-field",                // every SyncPolicy default
        "docs/testing.md",                                // test a handler
    ] {
        assert!(
            targets.iter().any(|t| t == task),
            "the README links no {task}"
        );
    }
    let lines = readme.lines().count();
    assert!(
        lines <= 250,
        "the README is {lines} lines: it is the front door"
    );
}

#[test]
fn the_install_steps_are_the_quick_start_app() {
    let readme = read("README.md");
    let at = readme
        .find("src-tauri/capabilities/default.json")
        .expect("the Install section shows the capability");
    let block = blocks(&readme[at..])
        .into_iter()
        .find(|block| block.lang == "json")
        .unwrap();
    let shown: serde_json::Value = serde_json::from_str(&block.body).unwrap();
    let built: serde_json::Value =
        serde_json::from_str(&read("ci/quickstart/src-tauri/capabilities/default.json")).unwrap();
    let permissions = built["permissions"].as_array().unwrap();
    assert!(
        permissions.contains(&shown),
        "{shown} is not in {permissions:?}"
    );
    // The template's own permissions stay.
    for kept in ["core:default", "opener:default"] {
        assert!(permissions.contains(&serde_json::json!(kept)));
    }
    let line = blocks(&readme)
        .into_iter()
        .find(|block| {
            block.lang == "toml" && block.body.trim_start().starts_with("tauri-plugin-jobs =")
        })
        .expect("the Install section shows the dependency");
    assert!(
        read("ci/quickstart/src-tauri/Cargo.toml").contains(line.body.trim()),
        "{}",
        line.body
    );
}

/// The string values of a union in `guest-js/bindings.ts`: `"a" | "b"` for a type, or
/// the `key: "a"` members for a tagged union.
fn union_values(bindings: &str, type_name: &str, key: Option<&str>) -> BTreeSet<String> {
    let start = bindings
        .find(&format!("export type {type_name} ="))
        .unwrap_or_else(|| panic!("{type_name} in the bindings"));
    let body = &bindings[start..];
    let body = &body[..body.find(";\n\n").expect("the end of the type")];
    let mut values = BTreeSet::new();
    for line in body.lines().map(str::trim) {
        if line.starts_with("/**") || line.starts_with('*') {
            continue;
        }
        let text = match key {
            Some(key) => match line.find(&format!("{key}: \"")) {
                Some(at) => &line[at + key.len() + 2..],
                None => continue,
            },
            None if line.starts_with('"') => line,
            None => continue,
        };
        let value = text.trim_start_matches('"');
        values.insert(value[..value.find('"').unwrap()].to_owned());
    }
    values
}

/// The first column of the table in `text` whose header starts with `header`.
fn table_keys(text: &str, header: &str) -> BTreeSet<String> {
    let start = text
        .find(&format!("\n{header}"))
        .unwrap_or_else(|| panic!("a table headed {header}"));
    text[start + 1..]
        .lines()
        .skip(2)
        .take_while(|line| line.starts_with('|'))
        .map(|line| {
            line.split('|')
                .nth(1)
                .unwrap()
                .trim()
                .trim_matches('`')
                .to_owned()
        })
        .collect()
}

#[test]
fn the_tables_of_codes_and_outcomes_are_the_bindings() {
    let bindings = read("guest-js/bindings.ts");
    let codes = union_values(&bindings, "ErrorCode", None);
    assert!(codes.contains("unknownKind"), "{codes:?}");
    assert_eq!(
        table_keys(&read("docs/errors.md"), "| `code` | when |"),
        codes
    );
    let outcomes = union_values(&bindings, "SyncOutcome", Some("outcome"));
    assert!(outcomes.len() >= 6, "{outcomes:?}");
    assert_eq!(
        table_keys(
            &read("docs/sync.md"),
            "| `outcome` | other fields | meaning |"
        ),
        outcomes
    );
}

#[test]
fn the_sync_policy_table_gives_the_defaults_the_code_has() {
    use std::time::Duration;
    use tauri_plugin_jobs::sync::SyncPolicy;
    let table = read("docs/sync.md");
    let fields = table_keys(&table, "| field | set with | default | what it does |");
    let expected: BTreeSet<String> = [
        "every",
        "min_interval",
        "backoff",
        "offline_retry",
        "max_throttle",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    assert_eq!(fields, expected);
    let policy = SyncPolicy::every(Duration::from_secs(600));
    // The backoff's base and cap, without jitter (random 0.5 is the middle).
    assert_eq!(policy.delay_for(1, 0.5), Duration::from_secs(30));
    assert_eq!(policy.delay_for(30, 0.5), Duration::from_secs(3600));
    for default in [
        "30 s, doubling to 1 h",
        "the lower of `every` and 30 s",
        "| 15 s |",
        "| 24 h |",
    ] {
        assert!(table.contains(default), "the table says {default}");
    }
}

#[test]
fn the_config_toml_example_is_a_file_the_plugin_reads() {
    let example = blocks(&read("docs/config.md"))
        .into_iter()
        .find(|block| block.lang == "toml" && block.body.contains("[jobs]"))
        .expect("the config.toml page shows a file");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, &example.body).unwrap();
    let config = tauri_plugin_jobs::config::Config::load(&path).unwrap();
    assert!(config.jobs.rate_limits.contains_key("send-mail"));
    assert!(config.jobs.kind_limits.contains_key("embed"));
}
