//! The crate's layers hold: no module imports from a layer above it, and modules of
//! one layer do not import each other. The layers are the `text` block under "The map"
//! in `src/lib.rs`; every module `lib.rs` declares must be in it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

fn source_files(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            source_files(&path, files);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
}

/// Module name to layer number, from the map in `lib.rs`.
fn layers(lib: &str) -> HashMap<String, usize> {
    let map = &lib[lib.find("## The map").expect("lib.rs has a map")..];
    let block = &map[map.find("//! ```text").expect("the map has a text block")..];
    let mut layers = HashMap::new();
    for (number, line) in block
        .lines()
        .skip(1)
        .map(|line| line.trim_start_matches("//!").trim())
        .take_while(|line| *line != "```")
        .enumerate()
    {
        for module in line.split_whitespace() {
            layers.insert(module.to_owned(), number);
        }
    }
    layers
}

/// What `lib.rs` re-exports at the crate's root (`crate::Error`), by the module it
/// comes from.
fn root_items(lib: &str) -> HashMap<String, String> {
    let mut items = HashMap::new();
    for line in lib.lines() {
        let Some(path) = line.trim().strip_prefix("pub use ") else {
            continue;
        };
        let Some((module, names)) = path.trim_end_matches(';').split_once("::") else {
            continue;
        };
        for name in names.trim_matches(|c| c == '{' || c == '}').split(',') {
            let name = name.rsplit("::").next().unwrap_or(name).trim();
            if !name.is_empty() {
                items.insert(name.to_owned(), module.to_owned());
            }
        }
    }
    items
}

/// The modules of this crate a line of code names through `crate::`.
fn named_modules(line: &str) -> Vec<String> {
    let code = line.trim_start();
    if code.starts_with("//") {
        return Vec::new();
    }
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let after = &rest[at + "crate::".len()..];
        let name: String = after
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            found.push(name);
        } else if after.starts_with('{') {
            // `use crate::{a, b::c}`: every name at the top of the group.
            let group = &after[1..after.find('}').unwrap_or(after.len())];
            found.extend(group.split(',').filter_map(|item| {
                let name = item.trim().split("::").next()?.trim();
                (!name.is_empty()).then(|| name.to_owned())
            }));
        }
        rest = after;
    }
    found
}

#[test]
fn no_module_imports_from_a_layer_above_or_beside_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = std::fs::read_to_string(root.join("lib.rs")).unwrap();
    let layers = layers(&lib);
    let root_items = root_items(&lib);
    for line in lib.lines() {
        let declared = line
            .trim()
            .strip_prefix("pub mod ")
            .or_else(|| line.trim().strip_prefix("mod "))
            .and_then(|rest| rest.strip_suffix(';'));
        if let Some(module) = declared {
            assert!(
                layers.contains_key(module),
                "module `{module}` is declared in lib.rs but missing from the map"
            );
        }
    }
    let mut files = Vec::new();
    source_files(&root, &mut files);
    let mut wrong = Vec::new();
    for file in files {
        let relative = file.strip_prefix(&root).unwrap();
        let first = relative.components().next().unwrap().as_os_str();
        let module = first.to_str().unwrap().trim_end_matches(".rs").to_owned();
        if module == "lib" {
            continue;
        }
        let own = *layers
            .get(&module)
            .unwrap_or_else(|| panic!("{} is in no layer of the map", relative.display()));
        let text = std::fs::read_to_string(&file).unwrap();
        for (number, line) in text.lines().enumerate() {
            for named in named_modules(line) {
                let named = root_items.get(&named).cloned().unwrap_or(named);
                if named == module {
                    continue;
                }
                let Some(&theirs) = layers.get(&named) else {
                    wrong.push(format!(
                        "{}:{}: `crate::{named}` is neither a module of the map nor a \
                         re-export of one",
                        relative.display(),
                        number + 1
                    ));
                    continue;
                };
                if theirs >= own {
                    wrong.push(format!(
                        "{}:{}: `{module}` imports `{named}`, which is not below it",
                        relative.display(),
                        number + 1
                    ));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the layers:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_line_parser_sees_groups_and_skips_comments() {
    assert_eq!(named_modules("use crate::queue::Job;"), ["queue"]);
    assert_eq!(
        named_modules("use crate::{bus::Event, model};"),
        ["bus", "model"]
    );
    assert!(named_modules("// see crate::plugin").is_empty());
    assert_eq!(
        named_modules("let x = crate::model::sanitize_error(&crate::clock::now());"),
        ["model", "clock"]
    );
}
