//! Tidying the schemas schemars generates before clients see them, once,
//! when the router is built. tools/list is paid for in tokens by every
//! session, so everything that carries no information for a client goes:
//!
//! - `$ref`s into `$defs` are inlined (some clients do not resolve them;
//!   our result types are not recursive, and a recursive one keeps `$defs`);
//! - `$schema` (MCP fixes the dialect), integer `format`s (`uint`, `int64`:
//!   non-standard, ignored by validators) and `minimum: 0` on unsigned ints;
//! - inputs: optional fields are plain types (`"string"`, not
//!   `["string", "null"]`) without `"default": null`, `false` or `[]`;
//!   `additionalProperties` (the server refuses unknown fields anyway);
//! - outputs: `{"type": "object"}`, which says the tool returns
//!   `structuredContent` and what shape it has at the top. Field lists and
//!   types are left out: the model reads the text rendering, which carries
//!   every fact (`render.rs`), and they cost a third of tools/list (the
//!   budget is 3,000 tokens with every tool, counted with a real tokenizer
//!   in `tests/mcp_inprocess.rs`).

use serde_json::{Map, Value};

/// How deep `$ref`s are followed; a recursive type keeps its `$ref` below this.
const MAX_INLINE_DEPTH: usize = 8;

/// Every tool's output schema: an object (see the module doc).
pub fn output() -> Map<String, Value> {
    let mut out = Map::new();
    out.insert("type".into(), Value::from("object"));
    out
}

/// The tidied copy of an input schema.
pub fn tidy(schema: &Map<String, Value>) -> Map<String, Value> {
    let mut out = schema.clone();
    out.remove("$schema");
    let defs = out.remove("$defs");
    let defs = defs.as_ref().and_then(Value::as_object);
    let mut value = Value::Object(out);
    let mut kept_refs = false;
    walk(&mut value, defs, 0, &mut kept_refs);
    trim(&mut value);
    let Value::Object(mut out) = value else {
        unreachable!("walk keeps an object an object")
    };
    if kept_refs && let Some(d) = defs {
        out.insert("$defs".into(), Value::Object(d.clone()));
    }
    out
}

/// Drop what carries no information from an input schema (see the module
/// doc).
fn trim(v: &mut Value) {
    match v {
        Value::Object(map) => {
            // An enum documented variant by variant (`oneOf` of `const`s) is
            // stated as a plain `enum`: the field's own description says
            // what the values mean.
            if let Some(Value::Array(alts)) = map.get("oneOf")
                && !alts.is_empty()
                && alts
                    .iter()
                    .all(|a| a.get("const").is_some_and(Value::is_string))
            {
                let values: Vec<Value> = alts
                    .iter()
                    .filter_map(|a| a.get("const").cloned())
                    .collect();
                map.remove("oneOf");
                map.insert("type".into(), Value::from("string"));
                map.insert("enum".into(), Value::Array(values));
            }
            // Inputs: an optional field is its plain type, not `X or null`.
            if let Some(Value::Array(alts)) = map.get("anyOf")
                && alts.len() == 2
                && let Some(pos) = alts
                    .iter()
                    .position(|a| a.get("type") == Some(&Value::from("null")))
            {
                let Value::Object(inner) = alts[1 - pos].clone() else {
                    unreachable!()
                };
                map.remove("anyOf");
                for (k, val) in inner {
                    if k != "description" || !map.contains_key("description") {
                        map.entry(k).or_insert(val);
                    }
                }
                return trim(v);
            }
            if map.get("minimum") == Some(&Value::from(0)) {
                map.remove("minimum");
            }
            // `null`, `false` and `[]` defaults say nothing an optional
            // field does not; unknown fields are refused by the server anyway.
            if matches!(map.get("default"), Some(Value::Null | Value::Bool(false)))
                || map
                    .get("default")
                    .is_some_and(|d| d.as_array().is_some_and(Vec::is_empty))
            {
                map.remove("default");
            }
            map.remove("additionalProperties");
            // An array's items repeat what the array's own description says.
            if let Some(Value::Object(items)) = map.get_mut("items") {
                items.remove("description");
            }
            if let Some(Value::Array(types)) = map.get("type") {
                let non_null: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
                if non_null.len() == 1 && types.len() == 2 {
                    map.insert("type".into(), non_null[0].clone());
                }
            }
            // A property called `description` is a name, not a description.
            for (k, val) in map.iter_mut() {
                if k == "properties" {
                    if let Value::Object(props) = val {
                        for p in props.values_mut() {
                            trim(p);
                        }
                    }
                } else {
                    trim(val);
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                trim(item);
            }
        }
        _ => {}
    }
}

fn walk(v: &mut Value, defs: Option<&Map<String, Value>>, depth: usize, kept: &mut bool) {
    match v {
        Value::Object(map) => {
            if let Some(Value::String(r)) = map.get("$ref") {
                let target = r
                    .strip_prefix("#/$defs/")
                    .and_then(|name| defs.and_then(|d| d.get(name)));
                match target {
                    Some(Value::Object(def)) if depth < MAX_INLINE_DEPTH => {
                        let mut merged = def.clone();
                        for (k, val) in map.iter() {
                            if k != "$ref" {
                                merged.insert(k.clone(), val.clone());
                            }
                        }
                        *map = merged;
                        let mut inner = Value::Object(std::mem::take(map));
                        walk(&mut inner, defs, depth + 1, kept);
                        if let Value::Object(m) = inner {
                            *map = m;
                        }
                        return;
                    }
                    _ => *kept = true,
                }
            }
            let is_integer = match map.get("type") {
                Some(Value::String(t)) => t == "integer",
                Some(Value::Array(ts)) => ts.iter().any(|t| t == "integer"),
                _ => false,
            };
            if is_integer {
                map.remove("format");
            }
            for val in map.values_mut() {
                walk(val, defs, depth, kept);
            }
        }
        Value::Array(items) => {
            for item in items {
                walk(item, defs, depth, kept);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn inlines_refs_and_drops_integer_formats() {
        let s = obj(json!({
            "type": "object",
            "properties": {
                "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
                "n": {"type": "integer", "format": "uint", "minimum": 0},
                "when": {"type": "string", "format": "date-time"},
                "opt": {"anyOf": [{"$ref": "#/$defs/Item"}, {"type": "null"}]}
            },
            "$defs": {"Item": {"type": "object", "properties": {"line": {"type": ["integer", "null"], "format": "uint32"}}}}
        }));
        let t = tidy(&s);
        assert!(t.get("$defs").is_none());
        assert_eq!(t["properties"]["items"]["items"]["type"], "object");
        assert!(
            t["properties"]["items"]["items"]["properties"]["line"]
                .get("format")
                .is_none()
        );
        assert!(t["properties"]["n"].get("format").is_none());
        assert_eq!(t["properties"]["when"]["format"], "date-time");
        assert_eq!(
            t["properties"]["opt"]["type"], "object",
            "optional input: its plain type"
        );
    }

    #[test]
    fn trims_noise_by_side() {
        let s = obj(json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "kind": {"type": ["string", "null"], "default": null, "description": "Kind."},
                "n": {"type": "integer", "minimum": 0},
                "depth": {"type": ["integer", "null"], "minimum": 1},
                "description": {"type": "string", "description": "A field named description."}
            }
        }));
        let i = tidy(&s);
        assert!(i.get("$schema").is_none());
        assert_eq!(
            i["properties"]["kind"],
            json!({"type": "string", "description": "Kind."})
        );
        assert_eq!(i["properties"]["n"], json!({"type": "integer"}));
        assert_eq!(
            i["properties"]["depth"],
            json!({"type": "integer", "minimum": 1})
        );
    }

    #[test]
    fn outputs_are_just_objects() {
        let s = obj(json!({
            "type": "object",
            "required": ["list", "one"],
            "properties": {
                "list": {"type": "array", "items": {"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}}}},
                "one": {"type": "object", "properties": {"b": {"type": "string"}}, "required": ["b"]}
            }
        }));
        assert_eq!(Value::Object(output()), json!({"type": "object"}));
        assert_eq!(tidy(&s)["properties"]["one"]["required"], json!(["b"]));
    }

    #[test]
    fn recursive_types_keep_their_defs() {
        let s = obj(json!({
            "type": "object",
            "properties": {"node": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {"type": "object", "properties": {"child": {"$ref": "#/$defs/Node"}}}}
        }));
        let t = tidy(&s);
        assert!(t.get("$defs").is_some());
        assert!(serde_json::to_string(&t).unwrap().contains("#/$defs/Node"));
    }

    #[test]
    fn documented_enums_become_plain_enums_and_optional_inputs_plain_types() {
        let s = json!({
            "type": "object",
            "properties": {
                "op": {"anyOf": [
                    {"description": "What to do.", "oneOf": [
                        {"const": "a", "type": "string", "description": "A."},
                        {"const": "b", "type": "string", "description": "B."}
                    ]},
                    {"type": "null"}
                ], "description": "a or b"}
            }
        });
        let t = tidy(s.as_object().unwrap());
        assert_eq!(
            t["properties"]["op"],
            json!({"description": "a or b", "type": "string", "enum": ["a", "b"]})
        );
    }
}
