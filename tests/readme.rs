//! The README's Rust never rots: every ```rust block in it appears, line for line, in a
//! file that is compiled: the quick start in `ci/consumer/src/lib.rs` (an app CI builds
//! with `cargo check`), the crate-level snippets in `examples/readme.rs` (built by
//! `cargo test`, run by `cargo run --example readme`), the test kit's examples in
//! `tests/testing_kit.rs`.

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

#[test]
fn every_rust_block_of_the_readme_is_in_a_compiled_file() {
    let readme = read("README.md");
    let compiled: Vec<String> = [
        "ci/consumer/src/lib.rs",
        "examples/readme.rs",
        "tests/testing_kit.rs",
    ]
    .iter()
    .map(|path| read(path))
    .collect();
    let mut blocks = 0;
    let mut rest = readme.as_str();
    while let Some(start) = rest.find("```rust\n") {
        let body = &rest[start + "```rust\n".len()..];
        let end = body.find("```").expect("a closed block");
        let block = lines(&body[..end]);
        blocks += 1;
        let found = compiled.iter().any(|file| {
            let file = lines(file);
            file.windows(block.len())
                .any(|window| window == block.as_slice())
        });
        assert!(
            found,
            "README block {blocks} is in no compiled file:\n{}",
            block.join("\n")
        );
        rest = &body[end..];
    }
    assert!(blocks >= 3, "found {blocks} rust blocks");
}

#[test]
fn the_install_capability_is_the_one_ci_builds_the_quick_start_with() {
    let readme = read("README.md");
    let at = readme
        .find("src-tauri/capabilities/default.json")
        .expect("the Install section shows the capability");
    let block = &readme[at..];
    let start = block.find("```json\n").expect("a json block") + "```json\n".len();
    let end = start + block[start..].find("```").expect("a closed block");
    let shown: serde_json::Value = serde_json::from_str(&block[start..end]).unwrap();
    let built: serde_json::Value =
        serde_json::from_str(&read("ci/consumer/capabilities/default.json")).unwrap();
    assert_eq!(shown, built);
}
