//! The TypeScript of a Rust type as serde sees it: traced from its `Deserialize`
//! (`serde-reflection` runs it against a deserializer that records what it asks for:
//! struct and field names after `rename` and `rename_all`, skipped fields left out,
//! every variant of an enum), then written as the JSON it reads and writes.
//!
//! What cannot be traced (a type that deserializes through `deserialize_any`:
//! `serde_json::Value`, untagged or internally tagged enums, `flatten`; one that
//! refers to itself) says why; the app then gives it with `Typescript::ty`.

#[cfg(debug_assertions)]
use std::collections::BTreeSet;

use serde::de::DeserializeOwned;

/// A Rust type as the declarations know it: its name, and how to trace its shape
/// (for types that deserialize; only in debug builds).
#[derive(Debug, Clone, Copy)]
pub(crate) struct RustType {
    pub(crate) name: &'static str,
    pub(crate) shape: Option<fn(Side) -> Result<String, String>>,
}

/// Which way a value crosses: into a handler (an `Option` field may be left out) or
/// out of it (every field is there, `null` for `None`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    Input,
    Output,
}

impl RustType {
    /// `T` by name only.
    pub(crate) fn named<T: ?Sized>() -> RustType {
        RustType {
            name: std::any::type_name::<T>(),
            shape: None,
        }
    }

    /// `T` by name, with its shape traced when a declaration asks for it.
    pub(crate) fn traced<T: DeserializeOwned>() -> RustType {
        RustType {
            name: std::any::type_name::<T>(),
            // Only debug builds write declarations: a release build links none of
            // the tracing.
            #[cfg(debug_assertions)]
            shape: Some(trace::<T>),
            #[cfg(not(debug_assertions))]
            shape: None,
        }
    }
}

#[cfg(debug_assertions)]
fn trace<T: DeserializeOwned>(side: Side) -> Result<String, String> {
    // A Deserialize that panics on the tracer's made-up values is a type that
    // cannot be traced, never a panic of the app.
    let (format, registry) = std::panic::catch_unwind(traced::<T>)
        .map_err(|_| "its Deserialize panicked while traced".to_owned())??;
    Writer {
        registry: &registry,
        side,
        open: BTreeSet::new(),
    }
    .format(&format)
}

/// `T`'s format and the containers in it, every variant of every enum included.
/// serde-reflection explores one new variant of an enum per deserialization, and only
/// of enums not already marked incomplete in that pass: so passes repeat, clearing
/// the marks of the enums known by name, until none is left; an enum first met
/// inside another's variant is learnt by name from the registry's complaint, and the
/// tracing starts again knowing it.
#[cfg(debug_assertions)]
fn traced<T: DeserializeOwned>(
) -> Result<(serde_reflection::Format, serde_reflection::Registry), String> {
    use serde_reflection::{Error, Format, Samples, Tracer, TracerConfig};
    let samples = Samples::new();
    let mut enums = BTreeSet::new();
    for _ in 0..16 {
        let mut tracer = Tracer::new(TracerConfig::default());
        let mut format = None;
        for _ in 0..256 {
            let (traced, _) = tracer
                .trace_type_once::<T>(&samples)
                .map_err(|error| error.to_string())?;
            if let Format::TypeName(name) = &traced {
                enums.insert(name.clone());
            }
            format = Some(traced);
            let mut incomplete = false;
            for name in &enums {
                incomplete |= tracer.check_incomplete_enum(name).is_some();
            }
            if !incomplete {
                break;
            }
        }
        match tracer.registry() {
            Ok(registry) => {
                let format = format.ok_or("nothing was traced")?;
                return Ok((format, registry));
            }
            Err(Error::MissingVariants(names)) if !names.iter().all(|n| enums.contains(n)) => {
                enums.extend(names);
            }
            Err(error) => return Err(error.to_string()),
        }
    }
    Err("its enums are nested too deep to trace".into())
}

#[cfg(debug_assertions)]
struct Writer<'r> {
    registry: &'r serde_reflection::Registry,
    side: Side,
    // The containers being written, to refuse a type that contains itself.
    open: BTreeSet<String>,
}

#[cfg(debug_assertions)]
impl Writer<'_> {
    fn format(&mut self, format: &serde_reflection::Format) -> Result<String, String> {
        use serde_reflection::Format;
        Ok(match format {
            Format::Variable(_) => return Err("a part of it could not be traced".into()),
            Format::TypeName(name) => self.container(name)?,
            Format::Unit => "null".into(),
            Format::Bool => "boolean".into(),
            Format::I8
            | Format::I16
            | Format::I32
            | Format::I64
            | Format::I128
            | Format::U8
            | Format::U16
            | Format::U32
            | Format::U64
            | Format::U128
            | Format::F32
            | Format::F64 => "number".into(),
            Format::Char | Format::Str => "string".into(),
            Format::Bytes => "number[]".into(),
            Format::Option(inner) => format!("{} | null", self.format(inner)?),
            Format::Seq(inner) => format!("{}[]", self.item(inner)?),
            // JSON's object keys are strings, whatever the Rust key.
            Format::Map { value, .. } => format!("Record<string, {}>", self.format(value)?),
            Format::Tuple(items) => self.tuple(items)?,
            Format::TupleArray { content, size } => {
                self.tuple(&vec![content.as_ref().clone(); *size])?
            }
        })
    }

    /// An array's item: a union in parentheses.
    fn item(&mut self, format: &serde_reflection::Format) -> Result<String, String> {
        let item = self.format(format)?;
        Ok(if top_level_union(&item) {
            format!("({item})")
        } else {
            item
        })
    }

    fn tuple(&mut self, items: &[serde_reflection::Format]) -> Result<String, String> {
        let items: Result<Vec<_>, _> = items.iter().map(|item| self.format(item)).collect();
        Ok(format!("[{}]", items?.join(", ")))
    }

    fn fields(
        &mut self,
        fields: &[serde_reflection::Named<serde_reflection::Format>],
    ) -> Result<String, String> {
        use serde_reflection::Format;
        if fields.is_empty() {
            return Ok("Record<string, never>".into());
        }
        let mut out = Vec::new();
        for field in fields {
            let optional = self.side == Side::Input && matches!(field.value, Format::Option(_));
            out.push(format!(
                "{}{}: {}",
                key(&field.name),
                if optional { "?" } else { "" },
                self.format(&field.value)?
            ));
        }
        Ok(format!("{{ {} }}", out.join("; ")))
    }

    fn container(&mut self, name: &str) -> Result<String, String> {
        use serde_reflection::{ContainerFormat, VariantFormat};
        let Some(container) = self.registry.get(name) else {
            return Err(format!("{name} was not traced"));
        };
        if !self.open.insert(name.to_owned()) {
            return Err(format!("{name} contains itself"));
        }
        let out = match container {
            ContainerFormat::UnitStruct => "null".to_owned(),
            ContainerFormat::NewTypeStruct(inner) => self.format(inner)?,
            ContainerFormat::TupleStruct(items) => self.tuple(items)?,
            ContainerFormat::Struct(fields) => self.fields(fields)?,
            ContainerFormat::Enum(variants) => {
                let mut out = Vec::new();
                for variant in variants.values() {
                    let tag = key(&variant.name);
                    out.push(match &variant.value {
                        VariantFormat::Variable(_) => {
                            return Err(format!("a variant of {name} could not be traced"))
                        }
                        VariantFormat::Unit => quoted(&variant.name),
                        VariantFormat::NewType(inner) => {
                            format!("{{ {tag}: {} }}", self.format(inner)?)
                        }
                        VariantFormat::Tuple(items) => {
                            format!("{{ {tag}: {} }}", self.tuple(items)?)
                        }
                        VariantFormat::Struct(fields) => {
                            format!("{{ {tag}: {} }}", self.fields(fields)?)
                        }
                    });
                }
                out.join(" | ")
            }
        };
        self.open.remove(name);
        Ok(out)
    }
}

/// Whether `ts` is a union at its top level (not only inside an object or a tuple).
#[cfg(debug_assertions)]
fn top_level_union(ts: &str) -> bool {
    let mut depth = 0usize;
    let mut quoted = false;
    let mut previous = ' ';
    for c in ts.chars() {
        match c {
            '"' if previous != '\\' => quoted = !quoted,
            '{' | '[' | '(' | '<' if !quoted => depth += 1,
            '}' | ']' | ')' | '>' if !quoted => depth = depth.saturating_sub(1),
            '|' if !quoted && depth == 0 => return true,
            _ => {}
        }
        previous = c;
    }
    false
}

/// A property name: bare when it is an identifier, quoted otherwise.
#[cfg(debug_assertions)]
fn key(name: &str) -> String {
    let mut chars = name.chars();
    let identifier = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if identifier {
        name.to_owned()
    } else {
        quoted(name)
    }
}

#[cfg(debug_assertions)]
fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_owned())
}

#[cfg(all(test, debug_assertions))]
mod tests {
    use std::collections::BTreeMap;

    use serde::Deserialize;

    use super::*;

    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    #[allow(dead_code)]
    struct Episode {
        episode_id: u64,
        title: String,
        #[serde(rename = "url")]
        address: String,
        chapters: Vec<Chapter>,
        note: Option<String>,
        #[serde(skip)]
        cached: bool,
        tags: BTreeMap<String, u32>,
        kind: Kind,
        pair: (u8, bool),
    }

    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Chapter {
        at: f64,
        r#type: Option<u8>,
    }

    #[derive(Deserialize)]
    #[allow(dead_code)]
    enum Kind {
        Audio,
        Video { height: u32 },
        Link(String),
    }

    #[test]
    fn a_struct_is_written_as_serde_reads_it() {
        let input = trace::<Episode>(Side::Input).unwrap();
        assert_eq!(
            input,
            "{ episodeId: number; title: string; url: string; chapters: { at: number; type?: number | null }[]; \
             note?: string | null; tags: Record<string, number>; \
             kind: \"Audio\" | { Video: { height: number } } | { Link: string }; pair: [number, boolean] }"
        );
        let output = trace::<Episode>(Side::Output).unwrap();
        assert!(output.contains("note: string | null"), "{output}");
    }

    #[test]
    fn what_cannot_be_traced_says_why() {
        #[derive(Deserialize)]
        #[serde(tag = "type")]
        #[allow(dead_code)]
        enum Tagged {
            A { x: u8 },
        }
        #[derive(Deserialize)]
        #[allow(dead_code)]
        struct Tree {
            children: Vec<Tree>,
        }
        assert!(trace::<Tagged>(Side::Input).is_err());
        assert!(trace::<serde_json::Value>(Side::Input).is_err());
        let tree = trace::<Tree>(Side::Input).unwrap_err();
        assert!(tree.contains("contains itself"), "{tree}");
    }
}
