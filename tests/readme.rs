//! The README's code never rots: every ```rust block in it appears, line for line, in a
//! file that is compiled: the quick start's additions in `ci/quickstart` (a fresh
//! create-tauri-app project that `scripts/quickstart.sh` builds from the packaged
//! crate and runs), the crate-level snippets in `examples/readme.rs` (built by `cargo
//! test`, run by `cargo run --example readme`), the test kit's examples in
//! `tests/testing_kit.rs`. The webview's blocks (```ts, ```html) are in the quick
//! start's page, the capability and the Cargo line in its files, and the tables of
//! error codes and sync outcomes list exactly what the bindings define.

use std::collections::BTreeSet;
use std::path::Path;

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

/// The lines of `text`, trimmed, without empty ones: indentation may differ.
fn lines(text: &str) -> Vec<&str> {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect()
}

/// The bodies of the README's blocks fenced as `lang` (indented ones too).
fn blocks(readme: &str, lang: &str) -> Vec<String> {
    let fence = format!("```{lang}\n");
    let mut found = Vec::new();
    let mut rest = readme;
    while let Some(start) = rest.find(&fence) {
        let body = &rest[start + fence.len()..];
        let end = body.find("```").expect("a closed block");
        found.push(body[..end].to_owned());
        rest = &body[end..];
    }
    found
}

/// Asserts every `lang` block of the README is, line for line, in one of `files`.
fn every_block_is_in(lang: &str, files: &[&str], at_least: usize) {
    let readme = read("README.md");
    let files: Vec<String> = files.iter().map(|path| read(path)).collect();
    let shown = blocks(&readme, lang);
    for (n, block) in shown.iter().enumerate() {
        let block = lines(block);
        let found = files.iter().any(|file| {
            lines(file)
                .windows(block.len())
                .any(|window| window == block.as_slice())
        });
        assert!(
            found,
            "README {lang} block {} is in none of {files:?}:\n{}",
            n + 1,
            block.join("\n"),
            files = files.len()
        );
    }
    assert!(
        shown.len() >= at_least,
        "found {} {lang} blocks",
        shown.len()
    );
}

#[test]
fn every_rust_block_of_the_readme_is_in_a_compiled_file() {
    every_block_is_in(
        "rust",
        &[
            "ci/quickstart/src-tauri/src/lib.rs",
            "examples/readme.rs",
            "tests/testing_kit.rs",
        ],
        4,
    );
}

#[test]
fn the_webview_blocks_are_the_quick_start_page() {
    every_block_is_in("ts", &["ci/quickstart/src/main.ts"], 2);
    every_block_is_in("html", &["ci/quickstart/index.html"], 1);
}

#[test]
fn the_install_steps_are_the_quick_start_app() {
    let readme = read("README.md");
    let at = readme
        .find("src-tauri/capabilities/default.json")
        .expect("the Install section shows the capability");
    let block = &blocks(&readme[at..], "json")[0];
    let shown: serde_json::Value = serde_json::from_str(block).unwrap();
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

    let line = blocks(&readme, "toml")
        .into_iter()
        .find(|block| block.trim_start().starts_with("tauri-plugin-jobs ="))
        .expect("the Install section shows the dependency");
    assert!(
        read("ci/quickstart/src-tauri/Cargo.toml").contains(line.trim()),
        "{line}"
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

/// The first column of the README's table whose header starts with `header`.
fn table_keys(readme: &str, header: &str) -> BTreeSet<String> {
    let start = readme
        .find(&format!("\n{header}"))
        .unwrap_or_else(|| panic!("a table headed {header}"));
    readme[start + 1..]
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
    let readme = read("README.md");
    let bindings = read("guest-js/bindings.ts");
    let codes = union_values(&bindings, "ErrorCode", None);
    assert!(codes.contains("unknownKind"), "{codes:?}");
    assert_eq!(table_keys(&readme, "| `code` | when |"), codes);
    let outcomes = union_values(&bindings, "SyncOutcome", Some("outcome"));
    assert!(outcomes.len() >= 6, "{outcomes:?}");
    assert_eq!(
        table_keys(&readme, "| `outcome` | other fields | meaning |"),
        outcomes
    );
}

#[test]
fn the_config_toml_example_is_a_file_the_plugin_reads() {
    let readme = read("README.md");
    let example = blocks(&readme, "toml")
        .into_iter()
        .find(|block| block.contains("[jobs]"))
        .expect("the config.toml section shows a file");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, &example).unwrap();
    let config = tauri_plugin_jobs::config::Config::load(&path).unwrap();
    assert!(config.jobs.rate_limits.contains_key("send-mail"));
    assert!(config.jobs.kind_limits.contains_key("embed"));
}
