//! A Rust type's name, as `std::any::type_name` spells it, turned into the TypeScript
//! of the JSON serde makes of it: primitives, options, sequences, maps, tuples and
//! smart pointers are known; any other type is the app's, typed by what it gave
//! (`Typescript::ty`) or imported by name from its own bindings.

use std::collections::BTreeSet;

/// A parsed type name, with the text it was parsed from.
#[derive(Debug, PartialEq)]
enum Ty<'a> {
    /// `a::b::C<args>`.
    Path {
        text: &'a str,
        segments: Vec<&'a str>,
        args: Vec<Ty<'a>>,
    },
    /// `(A, B)`; `()` is the empty one.
    Tuple { text: &'a str, items: Vec<Ty<'a>> },
    /// `[T; N]` or `[T]`.
    Array { text: &'a str, item: Box<Ty<'a>> },
    /// `&T`, `&mut T`, `dyn T`: what the value is written as is `T`'s.
    Ref { text: &'a str, inner: Box<Ty<'a>> },
}

impl<'a> Ty<'a> {
    fn text(&self) -> &'a str {
        match self {
            Ty::Path { text, .. }
            | Ty::Tuple { text, .. }
            | Ty::Array { text, .. }
            | Ty::Ref { text, .. } => text,
        }
    }
}

struct Parser<'a> {
    source: &'a str,
    at: usize,
}

impl<'a> Parser<'a> {
    fn skip_spaces(&mut self) {
        while self.source[self.at..].starts_with(' ') {
            self.at += 1;
        }
    }

    fn eat(&mut self, token: &str) -> bool {
        self.skip_spaces();
        if self.source[self.at..].starts_with(token) {
            self.at += token.len();
            true
        } else {
            false
        }
    }

    fn list(&mut self, close: &str) -> Option<Vec<Ty<'a>>> {
        let mut items = Vec::new();
        if self.eat(close) {
            return Some(items);
        }
        loop {
            items.push(self.ty()?);
            if self.eat(close) {
                return Some(items);
            }
            if !self.eat(",") {
                return None;
            }
            if self.eat(close) {
                return Some(items);
            }
        }
    }

    fn ty(&mut self) -> Option<Ty<'a>> {
        self.skip_spaces();
        let start = self.at;
        if self.eat("&") {
            self.eat("mut ");
            let inner = Box::new(self.ty()?);
            return Some(Ty::Ref {
                text: &self.source[start..self.at],
                inner,
            });
        }
        if self.eat("dyn ") {
            let inner = Box::new(self.ty()?);
            return Some(Ty::Ref {
                text: &self.source[start..self.at],
                inner,
            });
        }
        if self.eat("(") {
            let items = self.list(")")?;
            return Some(Ty::Tuple {
                text: &self.source[start..self.at],
                items,
            });
        }
        if self.eat("[") {
            let item = Box::new(self.ty()?);
            if self.eat(";") {
                let rest = &self.source[self.at..];
                let len = rest.find(']')?;
                self.at += len;
            }
            if !self.eat("]") {
                return None;
            }
            return Some(Ty::Array {
                text: &self.source[start..self.at],
                item,
            });
        }
        let mut segments = Vec::new();
        loop {
            self.skip_spaces();
            let rest = &self.source[self.at..];
            let len = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            if len == 0 {
                return None;
            }
            segments.push(&rest[..len]);
            self.at += len;
            if !self.source[self.at..].starts_with("::") {
                break;
            }
            self.at += 2;
        }
        let args = if self.source[self.at..].starts_with('<') {
            self.at += 1;
            self.list(">")?
        } else {
            Vec::new()
        };
        Some(Ty::Path {
            text: &self.source[start..self.at],
            segments,
            args,
        })
    }
}

fn parse(name: &str) -> Option<Ty<'_>> {
    let mut parser = Parser {
        source: name,
        at: 0,
    };
    let ty = parser.ty()?;
    parser.skip_spaces();
    (parser.at == name.len()).then_some(ty)
}

/// What the app gave for its own types, and where the rest come from.
pub(super) struct Resolver<'a> {
    /// Rust type names (as `type_name` spells them) with their TypeScript.
    pub(super) given: &'a [(String, String)],
    /// Whether the app's other types are imported by name from its bindings.
    pub(super) import: bool,
    /// The names to import from the app's bindings.
    pub(super) imported: BTreeSet<String>,
    /// Whether `Value` (the plugin's JSON type) is used.
    pub(super) value: bool,
}

/// Paths of the standard library and serde_json, whose types are never the app's.
const KNOWN_CRATES: &[&str] = &["core", "alloc", "std", "serde_json"];

impl Resolver<'_> {
    /// The TypeScript of `name`, or the Rust name of the first type it cannot type.
    pub(super) fn typescript(&mut self, name: &str) -> Result<String, String> {
        let ty = parse(name).ok_or_else(|| name.to_owned())?;
        self.of(&ty)
    }

    fn of(&mut self, ty: &Ty<'_>) -> Result<String, String> {
        if let Some((_, given)) = self.given.iter().find(|(rust, _)| rust == ty.text()) {
            return Ok(given.clone());
        }
        match ty {
            Ty::Ref { inner, .. } => self.of(inner),
            Ty::Array { item, .. } => Ok(format!("{}[]", self.item(item)?)),
            Ty::Tuple { items, .. } if items.is_empty() => Ok("null".to_owned()),
            Ty::Tuple { items, .. } => {
                let items: Result<Vec<_>, _> = items.iter().map(|item| self.of(item)).collect();
                Ok(format!("[{}]", items?.join(", ")))
            }
            Ty::Path {
                text,
                segments,
                args,
            } => self.path(text, segments, args),
        }
    }

    /// An array's item: a union in parentheses.
    fn item(&mut self, ty: &Ty<'_>) -> Result<String, String> {
        let item = self.of(ty)?;
        Ok(if item.contains(" | ") {
            format!("({item})")
        } else {
            item
        })
    }

    fn path(&mut self, text: &str, segments: &[&str], args: &[Ty<'_>]) -> Result<String, String> {
        let last = *segments.last().unwrap_or(&"");
        let first = segments.first().copied().unwrap_or("");
        let known = segments.len() == 1 || KNOWN_CRATES.contains(&first);
        let arg = |index: usize| args.get(index).ok_or_else(|| text.to_owned());
        if known {
            let primitive = match last {
                "String" | "str" | "char" | "PathBuf" | "Path" => Some("string"),
                "bool" => Some("boolean"),
                "u8" | "u16" | "u32" | "u64" | "u128" | "usize" | "i8" | "i16" | "i32" | "i64"
                | "i128" | "isize" | "f32" | "f64" => Some("number"),
                _ if last.starts_with("NonZero") => Some("number"),
                _ => None,
            };
            if let Some(primitive) = primitive {
                return Ok(primitive.to_owned());
            }
            match last {
                "Option" => {
                    let inner = self.of(arg(0)?)?;
                    return Ok(if inner == "null" || inner.ends_with(" | null") {
                        inner
                    } else {
                        format!("{inner} | null")
                    });
                }
                "Vec" | "VecDeque" | "LinkedList" | "HashSet" | "BTreeSet" | "BinaryHeap" => {
                    let item = arg(0)?;
                    return Ok(format!("{}[]", self.item(item)?));
                }
                "Box" | "Arc" | "Rc" | "Cow" | "Reverse" | "Wrapping" => {
                    return self.of(arg(0)?);
                }
                "HashMap" | "BTreeMap" => {
                    let value = self.of(arg(1)?)?;
                    return Ok(format!("{{ [key in string]: {value} }}"));
                }
                "Value" if first == "serde_json" => {
                    self.value = true;
                    return Ok("Value".to_owned());
                }
                "Map" if first == "serde_json" => {
                    self.value = true;
                    return Ok("{ [key in string]: Value }".to_owned());
                }
                _ => return Err(text.to_owned()),
            }
        }
        if !self.import {
            return Err(text.to_owned());
        }
        self.imported.insert(last.to_owned());
        if args.is_empty() {
            return Ok(last.to_owned());
        }
        let args: Result<Vec<_>, _> = args.iter().map(|arg| self.of(arg)).collect();
        Ok(format!("{last}<{}>", args?.join(", ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{BTreeMap, HashMap};

    fn ts(name: &str, given: &[(String, String)], import: bool) -> Result<String, String> {
        Resolver {
            given,
            import,
            imported: BTreeSet::new(),
            value: false,
        }
        .typescript(name)
    }

    fn of<T: ?Sized>() -> Result<String, String> {
        ts(std::any::type_name::<T>(), &[], false)
    }

    struct Mine;
    struct Page<T>(T);

    #[test]
    fn standard_types_become_the_json_serde_writes() {
        assert_eq!(of::<String>().unwrap(), "string");
        assert_eq!(of::<u32>().unwrap(), "number");
        assert_eq!(of::<f64>().unwrap(), "number");
        assert_eq!(of::<bool>().unwrap(), "boolean");
        assert_eq!(of::<()>().unwrap(), "null");
        assert_eq!(of::<Option<String>>().unwrap(), "string | null");
        assert_eq!(of::<Option<Option<u8>>>().unwrap(), "number | null");
        assert_eq!(of::<Vec<Option<u8>>>().unwrap(), "(number | null)[]");
        assert_eq!(of::<[u8; 4]>().unwrap(), "number[]");
        assert_eq!(of::<(u32, String)>().unwrap(), "[number, string]");
        assert_eq!(
            of::<HashMap<String, Vec<bool>>>().unwrap(),
            "{ [key in string]: boolean[] }"
        );
        assert_eq!(
            of::<BTreeMap<String, u8>>().unwrap(),
            "{ [key in string]: number }"
        );
        assert_eq!(of::<Box<str>>().unwrap(), "string");
        assert_eq!(of::<std::path::PathBuf>().unwrap(), "string");
        assert_eq!(of::<serde_json::Value>().unwrap(), "Value");
        assert_eq!(
            of::<std::num::NonZeroU32>().unwrap(),
            "number",
            "{}",
            std::any::type_name::<std::num::NonZeroU32>()
        );
    }

    #[test]
    fn an_app_type_is_what_the_app_gave_or_imported_or_named_as_missing() {
        let mine = std::any::type_name::<Mine>().to_owned();
        assert_eq!(of::<Option<Mine>>().unwrap_err(), mine);
        let given = [(mine.clone(), "{ a: number }".to_owned())];
        assert_eq!(
            ts(std::any::type_name::<Vec<Mine>>(), &given, false).unwrap(),
            "{ a: number }[]"
        );
        let mut resolver = Resolver {
            given: &[],
            import: true,
            imported: BTreeSet::new(),
            value: false,
        };
        assert_eq!(
            resolver
                .typescript(std::any::type_name::<Page<Mine>>())
                .unwrap(),
            "Page<Mine>"
        );
        assert_eq!(
            resolver.imported.into_iter().collect::<Vec<_>>(),
            ["Mine", "Page"]
        );
    }

    #[test]
    fn a_name_that_does_not_parse_is_named() {
        assert_eq!(ts("a::<", &[], true).unwrap_err(), "a::<");
        assert_eq!(ts("", &[], true).unwrap_err(), "");
    }
}
