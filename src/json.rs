//! JSON at the crate's edges: values nested no deeper than [`MAX_JSON_DEPTH`],
//! checked before anything recursive runs (a schema check, a serialisation, a drop),
//! and typed functions behind JSON: a function that takes a typed argument, called
//! with a JSON value, whose future's output comes back as JSON. Durable handlers
//! ([`Handler`](crate::runner::Handler)) and the local job kinds the webview may start
//! are both kept that way, erased to one signature per registry.

use std::future::Future;
use std::io;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

/// Why a typed function called through JSON gave no JSON back.
#[derive(Debug)]
pub(crate) enum JsonCallError<E> {
    /// The function itself failed.
    Failed(E),
    /// Its output could not be serialised.
    Output(serde_json::Error),
}

/// Calls `run` with `input` deserialised into `A`, or fails at once with the parser's
/// error. The future runs `run`'s future and serialises what it returns.
pub(crate) fn call_json<A, C, T, E, F, Fut>(
    run: &F,
    input: Value,
    context: C,
) -> Result<impl Future<Output = Result<Value, JsonCallError<E>>> + Send + 'static, serde_json::Error>
where
    A: DeserializeOwned + 'static,
    T: Serialize,
    F: Fn(A, C) -> Fut,
    Fut: Future<Output = Result<T, E>> + Send + 'static,
{
    let input = typed::<A>(input)?;
    let future = run(input, context);
    Ok(async move {
        let output = future.await.map_err(JsonCallError::Failed)?;
        match to_value_bounded(&output) {
            Ok(value) => Ok(value),
            Err(error) => {
                if error.is_io() {
                    // Refused for its depth: dropping it could recurse as deep as it
                    // nests and take the thread's stack down. Leak it instead; a
                    // handler that returns such a value is a bug to fix, not to crash on.
                    std::mem::forget(output);
                }
                Err(JsonCallError::Output(error))
            }
        }
    })
}

/// `input` as an `A`: handed over as it is when `A` is [`Value`] itself (a function
/// that takes any JSON), where deserializing would rebuild every map and string.
fn typed<A: DeserializeOwned + 'static>(input: Value) -> Result<A, serde_json::Error> {
    let mut input = Some(input);
    if let Some(value) = (&mut input as &mut dyn std::any::Any).downcast_mut::<Option<A>>() {
        if let Some(value) = value.take() {
            return Ok(value);
        }
    }
    A::deserialize(input.unwrap_or_default())
}

// ===== what a parser says about a value =====

/// A parser's refusal, said without the value it refused and without Rust's module
/// paths: serde quotes what it met (`invalid type: string "{\"token\": 12345}",
/// expected u64`), and that value may hold a secret no redaction rule knows. What is
/// left names the kind of value met, what was expected, and the field or variant
/// names of the type: `invalid type: a string, expected u64`.
pub(crate) fn without_values(message: &str) -> String {
    use std::sync::LazyLock;
    static QUOTED: LazyLock<regex_lite::Regex> = LazyLock::new(|| {
        regex_lite::Regex::new(r#"\bstring "(?:[^"\\]|\\.)*""#).expect("a valid pattern")
    });
    static TICKED: LazyLock<regex_lite::Regex> = LazyLock::new(|| {
        regex_lite::Regex::new(
            r"\b(integer|floating point|character|boolean|unknown variant) `[^`]*`",
        )
        .expect("a valid pattern")
    });
    static PATHS: LazyLock<regex_lite::Regex> = LazyLock::new(|| {
        regex_lite::Regex::new(r"\b(?:[A-Za-z_][A-Za-z0-9_]*::)+").expect("a valid pattern")
    });
    let message = QUOTED.replace_all(message, "a string");
    let message = TICKED.replace_all(&message, |caps: &regex_lite::Captures<'_>| {
        match &caps[1] {
            "integer" => "an integer",
            "floating point" => "a floating point number",
            "character" => "a character",
            "boolean" => "a boolean",
            _ => "an unknown variant",
        }
        .to_owned()
    });
    PATHS.replace_all(&message, "").into_owned()
}

// ===== depth =====

/// The deepest nesting a payload or result may have. Deeper JSON could be stored but
/// not read back (the parser stops at 128 levels), which would make the job a poison
/// pill for every claim, and walking it recursively could exhaust a thread's stack.
pub const MAX_JSON_DEPTH: usize = 64;

/// Why `value` nests too deeply, if it does. Iterative: safe at any depth.
pub(crate) fn too_deep(value: &Value) -> Option<String> {
    // Depth counts arrays and objects, as the parser's limit does: `[[1]]` is two.
    let mut stack = vec![(value, 1usize)];
    while let Some((value, depth)) = stack.pop() {
        if depth > MAX_JSON_DEPTH && (value.is_array() || value.is_object()) {
            return Some(format!("JSON nested deeper than {MAX_JSON_DEPTH} levels"));
        }
        match value {
            Value::Array(items) => stack.extend(items.iter().map(|item| (item, depth + 1))),
            Value::Object(fields) => stack.extend(fields.values().map(|item| (item, depth + 1))),
            _ => {}
        }
    }
    None
}

/// `value` as JSON text to store, or why not: too deep (checked first, without
/// recursion) or longer than `limit` bytes.
pub(crate) fn checked_text(value: &Value, limit: usize) -> Result<String, String> {
    if let Some(reason) = too_deep(value) {
        return Err(reason);
    }
    let text = value.to_string();
    if text.len() > limit {
        return Err(format!(
            "{} bytes of JSON, more than the limit of {limit}",
            text.len()
        ));
    }
    Ok(text)
}

/// Drops `value` without recursion: a value too deep to check must not take the
/// thread's stack down when it goes away either.
pub(crate) fn drop_deep(value: Value) {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Array(items) => stack.extend(items),
            Value::Object(fields) => stack.extend(fields.into_iter().map(|(_, item)| item)),
            _ => {}
        }
    }
}

/// Serialises `value` to a [`Value`], refusing anything nested deeper than
/// [`MAX_JSON_DEPTH`] as soon as it gets there, before the recursion goes deeper.
pub(crate) fn to_value_bounded<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<Value> {
    serde_json::from_str(&to_string_bounded(value)?)
}

/// Serialises `value` to JSON text, refusing anything nested deeper than
/// [`MAX_JSON_DEPTH`] as soon as it gets there.
pub(crate) fn to_string_bounded<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<String> {
    let mut text = Vec::with_capacity(128);
    let mut serializer = serde_json::Serializer::with_formatter(&mut text, Bounded { depth: 0 });
    value.serialize(&mut serializer)?;
    // serde_json writes UTF-8 only.
    Ok(String::from_utf8(text).unwrap_or_default())
}

/// serde_json's compact output, counting the depth as it opens arrays and objects.
struct Bounded {
    depth: usize,
}

impl Bounded {
    fn open(&mut self) -> io::Result<()> {
        self.depth += 1;
        if self.depth > MAX_JSON_DEPTH {
            return Err(io::Error::other(format!(
                "JSON nested deeper than {MAX_JSON_DEPTH} levels"
            )));
        }
        Ok(())
    }
}

/// Refuses an integer that JSON numbers here cannot carry: past 64 bits it would be
/// read back as a rounded float, changing the data.
fn too_wide() -> io::Error {
    io::Error::other(
        "an integer does not fit in 64 bits: it would be read back rounded, so it is refused \
         (send it as a string)",
    )
}

impl serde_json::ser::Formatter for Bounded {
    fn write_i128<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: i128) -> io::Result<()> {
        match i64::try_from(value) {
            Ok(value) => self.write_i64(writer, value),
            Err(_) => match u64::try_from(value) {
                Ok(value) => self.write_u64(writer, value),
                Err(_) => Err(too_wide()),
            },
        }
    }

    fn write_u128<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: u128) -> io::Result<()> {
        u64::try_from(value)
            .map_err(|_| too_wide())
            .and_then(|value| self.write_u64(writer, value))
    }

    fn begin_array<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.open()?;
        writer.write_all(b"[")
    }

    fn end_array<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.depth -= 1;
        writer.write_all(b"]")
    }

    fn begin_object<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.open()?;
        writer.write_all(b"{")
    }

    fn end_object<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.depth -= 1;
        writer.write_all(b"}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_handed_over_and_any_other_type_is_deserialized() {
        let value = serde_json::json!({"n": 1, "tags": ["a", "b"]});
        assert_eq!(typed::<Value>(value.clone()).unwrap(), value);
        #[derive(serde::Deserialize, Debug, PartialEq)]
        struct N {
            n: u32,
        }
        assert_eq!(typed::<N>(value).unwrap(), N { n: 1 });
        assert!(typed::<N>(serde_json::json!({"n": "one"})).is_err());
    }

    #[test]
    fn a_parser_refusal_keeps_no_value_and_no_module_path() {
        for (said, kept) in [
            (
                r#"invalid type: string "{\"token\": 1234567890123}", expected u64"#,
                "invalid type: a string, expected u64",
            ),
            (
                "invalid value: integer `-5`, expected u32",
                "invalid value: an integer, expected u32",
            ),
            (
                "invalid type: floating point `1.5`, expected a string",
                "invalid type: a floating point number, expected a string",
            ),
            (
                "unknown variant `hunter2`, expected `a` or `b`",
                "an unknown variant, expected `a` or `b`",
            ),
            (
                "does not match alloc::vec::Vec<newapp_lib::Thumbnail>",
                "does not match Vec<Thumbnail>",
            ),
            ("missing field `width`", "missing field `width`"),
        ] {
            assert_eq!(without_values(said), kept);
        }
    }

    /// A value `depth` arrays deep, built without recursion.
    fn nested(depth: usize) -> Value {
        let mut value = Value::Null;
        for _ in 0..depth {
            value = Value::Array(vec![value]);
        }
        value
    }

    #[test]
    fn depth_is_checked_and_dropped_without_recursion() {
        let deep = nested(100_000);
        assert!(too_deep(&deep).is_some());
        assert!(to_string_bounded(&deep)
            .unwrap_err()
            .to_string()
            .contains("64"));
        drop_deep(deep);
        let fine = nested(MAX_JSON_DEPTH);
        assert!(too_deep(&fine).is_none());
        assert_eq!(to_value_bounded(&fine).unwrap(), fine);
        assert!(too_deep(&nested(MAX_JSON_DEPTH + 1)).is_some());
        assert!(to_string_bounded(&nested(MAX_JSON_DEPTH + 1)).is_err());
    }
}
