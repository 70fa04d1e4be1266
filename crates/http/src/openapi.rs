//! OpenAPI finishing touches every surface's document shares: what the
//! route annotations cannot say once for all, said here once, so that each
//! document states exactly what the server accepts (issue #19: schemathesis
//! checks every document against the running server).

use serde_json::json;
use utoipa::openapi::Content;
use utoipa::openapi::extensions::Extensions;
use utoipa::openapi::path::{Operation, Parameter, ParameterIn, ParameterStyle};
use utoipa::openapi::schema::{
    AdditionalProperties, ArrayItems, Object, ObjectBuilder, Schema, SchemaType, Type,
};
use utoipa::openapi::{OpenApi, RefOr, Required};

/// Every finishing touch, in order. Call once per document.
pub fn finish(spec: &mut OpenApi) {
    fill_response_descriptions(spec);
    for op in operations(spec) {
        // A parameter is a string on the wire, sent or not: never `null`.
        for p in op.parameters.iter_mut().flatten() {
            if let RefOr::T(Parameter {
                schema: Some(RefOr::T(schema)),
                ..
            }) = p
            {
                not_null(schema);
            }
        }
        bound_idempotency_key(op);
        exclusive_cursors(op);
        answer_refusals(op);
        if let Some(RefOr::T(body)) = op.request_body.as_mut() {
            for content in body.content.values_mut() {
                if let RefOr::T(Content {
                    schema: Some(RefOr::T(schema)),
                    ..
                }) = content
                {
                    // A body, when sent, is the object described: never `null`.
                    not_null(schema);
                    request_rules(schema);
                }
            }
        }
    }
    let requests = request_components(spec);
    if let Some(components) = spec.components.as_mut() {
        for (name, schema) in components.schemas.iter_mut() {
            if let RefOr::T(schema) = schema
                && requests.contains(name)
            {
                request_rules(schema);
            }
        }
        components
            .schemas
            .insert(JSON_VALUE.to_owned(), RefOr::T(json_value()));
        if let Some(RefOr::T(Schema::Object(o))) = components.schemas.get_mut("AdvanceTestClock") {
            exactly_one_of(o, &["seconds", "to"]);
        }
    }
}

/// What `lendhub_http::strict_json` refuses in any string or member name of
/// a JSON body: C0 controls but tab, line feed and carriage return; DEL and
/// the C1 controls; the bidirectional overrides and isolates.
pub const NO_CONTROLS: &str = "^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F\\u202A-\\u202E\\u2066-\\u2069]*$";

/// [`NO_CONTROLS`] with at least one character that is not white space:
/// what a name the server trims and requires reads as.
pub const NOT_BLANK: &str = "^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F\\u202A-\\u202E\\u2066-\\u2069]*[^\\s\\u0000-\\u001F\\u007F-\\u009F\\u202A-\\u202E\\u2066-\\u2069][^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F\\u202A-\\u202E\\u2066-\\u2069]*$";

/// `f` on `schema` and on every schema written inside it (not through `$ref`:
/// the components are visited on their own).
fn visit(schema: &mut Schema, f: &mut impl FnMut(&mut Schema)) {
    f(schema);
    let mut each = |items: &mut Vec<RefOr<Schema>>| {
        for item in items {
            if let RefOr::T(s) = item {
                visit(s, f);
            }
        }
    };
    match schema {
        Schema::Object(o) => {
            for property in o.properties.values_mut() {
                if let RefOr::T(s) = property {
                    visit(s, f);
                }
            }
            if let Some(AdditionalProperties::RefOr(RefOr::T(s))) =
                o.additional_properties.as_deref_mut()
            {
                visit(s, f);
            }
        }
        Schema::Array(a) => {
            if let ArrayItems::RefOrSchema(item) = &mut a.items
                && let RefOr::T(s) = item.as_mut()
            {
                visit(s, f);
            }
        }
        Schema::OneOf(x) => each(&mut x.items),
        Schema::AnyOf(x) => each(&mut x.items),
        Schema::AllOf(x) => each(&mut x.items),
        _ => {}
    }
}

/// What a request may hold, said of every schema in a request body or a
/// component: see [`refuse_controls`] and [`required_is_not_null`].
fn request_rules(schema: &mut Schema) {
    visit(schema, &mut |s| {
        refuse_controls(s);
        required_is_not_null(s);
    });
}

/// The name of the component [`refuse_controls`] gives free-form values.
pub const JSON_VALUE: &str = "JsonValue";

/// Any JSON value without [`NO_CONTROLS`]'s characters in a string or a
/// member name, said two levels deep: deeper containers are described as
/// any JSON (no generator in use handles a recursive schema well), though
/// the server refuses the characters at any depth.
fn json_value() -> Schema {
    let names = || Schema::Object(string(0, None, Some(NO_CONTROLS)));
    let scalar = || {
        ObjectBuilder::new().schema_type(SchemaType::Array(vec![
            Type::Null,
            Type::Boolean,
            Type::Number,
        ]))
    };
    let leaf = || {
        Schema::AnyOf(
            utoipa::openapi::schema::AnyOfBuilder::new()
                .item(scalar())
                .item(names())
                .item(ObjectBuilder::new().schema_type(Type::Array))
                .item(ObjectBuilder::new().schema_type(Type::Object))
                .build(),
        )
    };
    let mut object = ObjectBuilder::new()
        .schema_type(Type::Object)
        .additional_properties(Some(AdditionalProperties::RefOr(RefOr::T(leaf()))))
        .build();
    object.property_names = Some(Box::new(names()));
    Schema::AnyOf(
        utoipa::openapi::schema::AnyOfBuilder::new()
            .item(scalar())
            .item(names())
            .item(utoipa::openapi::schema::ArrayBuilder::new().items(RefOr::T(leaf())))
            .item(object)
            .description(Some(
                "Any JSON value; no control characters in its strings or member names.",
            ))
            .build(),
    )
}

/// Says [`NO_CONTROLS`] of a string that says nothing narrower (an enum, a
/// format or a pattern of its own), and of every member name and value of
/// a map.
fn refuse_controls(schema: &mut Schema) {
    let Schema::Object(o) = schema else {
        return;
    };
    let is = |t: Type| match &o.schema_type {
        SchemaType::Type(x) => *x == t,
        SchemaType::Array(xs) => xs.contains(&t),
        SchemaType::AnyValue => false,
    };
    if is(Type::String) && o.enum_values.is_none() && o.format.is_none() && o.pattern.is_none() {
        o.pattern = Some(NO_CONTROLS.to_owned());
    }
    let free = match o.additional_properties.as_deref() {
        Some(AdditionalProperties::FreeForm(free)) => *free,
        Some(AdditionalProperties::RefOr(_)) => false,
        // An object that does not close itself takes any member besides
        // those it names.
        None => is(Type::Object),
    };
    if free {
        o.additional_properties = Some(Box::new(AdditionalProperties::RefOr(RefOr::Ref(
            utoipa::openapi::Ref::from_schema_name(JSON_VALUE),
        ))));
    }
    // Any object that takes members it does not name takes their names
    // through the strict parser too.
    let open = match o.additional_properties.as_deref() {
        Some(AdditionalProperties::FreeForm(free)) => *free,
        Some(AdditionalProperties::RefOr(_)) => true,
        None => is(Type::Object),
    };
    if open {
        match o.property_names.as_deref_mut() {
            Some(Schema::Object(names)) if names.pattern.is_none() => {
                names.pattern = Some(NO_CONTROLS.to_owned());
            }
            Some(_) => {}
            None => {
                o.property_names =
                    Some(Box::new(Schema::Object(string(0, None, Some(NO_CONTROLS)))));
            }
        }
    }
}

/// The object takes exactly one of `members`.
fn exactly_one_of(o: &mut Object, members: &[&str]) {
    // The one sent is a value: `null` is not "sent".
    for member in members {
        if let Some(RefOr::T(property)) = o.properties.get_mut(*member) {
            not_null(property);
        }
    }
    let choices: Vec<serde_json::Value> =
        members.iter().map(|m| json!({"required": [m]})).collect();
    o.extensions
        .get_or_insert_with(Extensions::default)
        .insert("oneOf".to_owned(), json!(choices));
}

/// The string property `property` of component `component` (or each item,
/// if it is an array of strings) takes only `values`: a list the surface
/// knows, such as its event types.
pub fn name_values(spec: &mut OpenApi, component: &str, property: &str, values: &[&str]) {
    let Some(components) = spec.components.as_mut() else {
        return;
    };
    let Some(RefOr::T(Schema::Object(o))) = components.schemas.get_mut(component) else {
        return;
    };
    let named = |p: &mut Object| {
        p.enum_values = Some(values.iter().map(|v| json!(v)).collect());
        p.pattern = None;
    };
    match o.properties.get_mut(property) {
        Some(RefOr::T(Schema::Object(p))) => named(p),
        Some(RefOr::T(Schema::Array(a))) => {
            if let ArrayItems::RefOrSchema(item) = &mut a.items
                && let RefOr::T(Schema::Object(p)) = item.as_mut()
            {
                named(p);
            }
        }
        _ => {}
    }
}

/// A surface's event types, named wherever a document takes one: a test
/// event's `type`, the events list's `type` filter, and a webhook
/// endpoint's `enabled_events` (where `*` means all).
pub fn name_event_types(spec: &mut OpenApi, types: &[lendhub_domain::sandbox::events::EventType]) {
    let mut names: Vec<&str> = types.iter().map(|t| t.as_str()).collect();
    name_values(spec, "CreateTestEvent", "type", &names);
    name_query_values(spec, "/events", "type", &names);
    names.push(lendhub_domain::sandbox::events::ALL_EVENTS);
    for component in [
        "CreateWebhookEndpoint",
        "UpdateWebhookEndpoint",
        "Subscribe",
    ] {
        name_values(spec, component, "enabled_events", &names);
    }
}

/// `"*"` in the array property `property` of `component` stands alone: all
/// types, or a list of them (the rule of the tiers' `check_events`).
pub fn wildcard_alone(spec: &mut OpenApi, component: &str, property: &str) {
    also(
        spec,
        component,
        json!({
            "if": {
                "properties": {property: {"contains": {"const": lendhub_domain::sandbox::events::ALL_EVENTS}}},
                "required": [property],
            },
            "then": {"properties": {property: {"maxItems": 1}}},
        }),
    );
}

/// Adds `rule` to what every value of `component` must also satisfy (its
/// `allOf`): for a rule between members, which a member's own schema cannot
/// state.
pub fn also(spec: &mut OpenApi, component: &str, rule: serde_json::Value) {
    let Some(components) = spec.components.as_mut() else {
        return;
    };
    let Some(RefOr::T(Schema::Object(o))) = components.schemas.get_mut(component) else {
        return;
    };
    let extensions = o.extensions.get_or_insert_with(Extensions::default);
    match extensions.get_mut("allOf") {
        Some(serde_json::Value::Array(rules)) => rules.push(rule),
        _ => {
            extensions.insert("allOf".to_owned(), json!([rule]));
        }
    }
}

/// The query parameter `name` of every operation on a path ending with
/// `path_end` takes only `values`.
pub fn name_query_values(spec: &mut OpenApi, path_end: &str, name: &str, values: &[&str]) {
    for (path, item) in spec.paths.paths.iter_mut() {
        if !path.ends_with(path_end) {
            continue;
        }
        for op in [&mut item.get].into_iter().flatten() {
            for p in op.parameters.iter_mut().flatten() {
                if let RefOr::T(p) = p
                    && p.parameter_in == ParameterIn::Query
                    && p.name == name
                {
                    let mut schema = string(1, None, None);
                    schema.enum_values = Some(values.iter().map(|v| json!(v)).collect());
                    p.schema = Some(RefOr::T(Schema::Object(schema)));
                }
            }
        }
    }
}

/// The map property `property` of component `component` holds at most
/// `pairs` members, each name 1 to `name_max` characters and each value a
/// string of at most `value_max`.
pub fn bound_map(
    spec: &mut OpenApi,
    component: &str,
    property: &str,
    (pairs, name_max, value_max): (usize, usize, usize),
) {
    let Some(components) = spec.components.as_mut() else {
        return;
    };
    let Some(RefOr::T(Schema::Object(o))) = components.schemas.get_mut(component) else {
        return;
    };
    let Some(RefOr::T(Schema::Object(map))) = o.properties.get_mut(property) else {
        return;
    };
    map.max_properties = Some(pairs);
    map.property_names = Some(Box::new(Schema::Object(string(
        1,
        Some(name_max),
        Some(NO_CONTROLS),
    ))));
    map.additional_properties = Some(Box::new(AdditionalProperties::RefOr(RefOr::T(
        Schema::Object(string(0, Some(value_max), Some(NO_CONTROLS))),
    ))));
}

/// A member the server requires is refused as `null` too, whatever the
/// Rust type that reads it (an `Option`, so that its absence gets a clear
/// error rather than a parse failure).
fn required_is_not_null(schema: &mut Schema) {
    let Schema::Object(o) = schema else {
        return;
    };
    for name in &o.required {
        let Some(RefOr::T(property)) = o.properties.get_mut(name) else {
            continue;
        };
        not_null(property);
    }
}

/// `schema` without its `null` alternative.
fn not_null(schema: &mut Schema) {
    match schema {
        Schema::Object(o) => {
            if let SchemaType::Array(types) = &mut o.schema_type {
                types.retain(|t| *t != Type::Null);
                if let [one] = types.as_slice() {
                    o.schema_type = SchemaType::Type(one.clone());
                }
            }
        }
        Schema::Array(a) => {
            if let SchemaType::Array(types) = &mut a.schema_type {
                types.retain(|t| *t != Type::Null);
                if let [one] = types.as_slice() {
                    a.schema_type = SchemaType::Type(one.clone());
                }
            }
        }
        Schema::OneOf(x) => {
            x.items.retain(|item| {
                !matches!(item, RefOr::T(Schema::Object(o))
                    if o.schema_type == SchemaType::Type(Type::Null))
            });
            // A lone `$ref` stays in a one-item `oneOf` (valid, and it keeps
            // the description beside it); a lone inline schema replaces it.
            if let [RefOr::T(only)] = x.items.as_slice() {
                *schema = only.clone();
            }
        }
        _ => {}
    }
}

/// The refusals every operation of a kind can meet, in the envelope of its
/// other errors: one that takes an `Idempotency-Key` answers 400 for a
/// malformed key and 409 for a key reused with another request; one that
/// takes a body answers 400 for a missing content type or a body that does
/// not parse, and, for JSON, 422 for a member the strict parser refuses
/// (a control character, say) before the route's own rules are read; one
/// that takes `Lendhub-Version` answers 422 for a version that never was.
fn answer_refusals(op: &mut Operation) {
    let takes_header = |name: &str| {
        op.parameters.iter().flatten().any(|p| {
            matches!(p, RefOr::T(p) if p.parameter_in == ParameterIn::Header
                && p.name.eq_ignore_ascii_case(name))
        })
    };
    let (takes_key, takes_version) = (
        takes_header("idempotency-key"),
        takes_header("lendhub-version"),
    );
    let (takes_body, takes_json) = match &op.request_body {
        Some(RefOr::T(body)) => (true, body.content.contains_key("application/json")),
        Some(RefOr::Ref(_)) => (true, false),
        None => (false, false),
    };
    let responses = &mut op.responses.responses;
    let envelope = ["401", "404", "422", "400", "409"]
        .iter()
        .find_map(|s| match responses.get(*s) {
            Some(RefOr::T(r)) if !r.content.is_empty() => Some(r.content.clone()),
            _ => None,
        })
        .unwrap_or_default();
    let mut answer = |status: &str, words: &str| {
        responses.entry(status.to_owned()).or_insert_with(|| {
            let mut r = utoipa::openapi::Response::new(words);
            r.content = envelope.clone();
            RefOr::T(r)
        });
    };
    if takes_key {
        answer(
            "400",
            "The request is malformed (`idempotency_key_malformed` among others).",
        );
        answer(
            "409",
            "The Idempotency-Key was used with another request (`idempotency_key_reused`), or is in use by one still running.",
        );
    }
    if takes_body {
        answer(
            "400",
            "The body is missing its content type (`missing_content_type`) or does not parse.",
        );
    }
    if takes_version {
        answer(
            "422",
            "The `Lendhub-Version` header names no version of the API (`validation_failed`, reason `unknown_version`).",
        );
    }
    if takes_json {
        answer(
            "422",
            "A member of the body is refused (`validation_failed`, reason `control_character` among others).",
        );
    }
    // Every answer may be these: the caller's rate limit, and the store or
    // a counterparty unreachable (retryable, with `Retry-After`).
    answer(
        "429",
        "Too many requests (`rate_limited`): wait for the `Retry-After` seconds.",
    );
    answer(
        "503",
        "The service cannot answer just now (`service_unavailable`, `retryable: true`): retry after the `Retry-After` seconds.",
    );
}

/// The components a request body holds, directly or through others: the
/// request rules are the server's reading of requests, and say nothing of
/// what it answers.
fn request_components(spec: &OpenApi) -> std::collections::BTreeSet<String> {
    const PREFIX: &str = "#/components/schemas/";
    fn refs(value: &serde_json::Value, out: &mut Vec<String>) {
        match value {
            serde_json::Value::Object(map) => {
                if let Some(serde_json::Value::String(r)) = map.get("$ref")
                    && let Some(name) = r.strip_prefix(PREFIX)
                {
                    out.push(name.to_owned());
                }
                map.values().for_each(|v| refs(v, out));
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
            _ => {}
        }
    }
    let mut pending = Vec::new();
    for item in spec.paths.paths.values() {
        for op in [&item.post, &item.put, &item.patch, &item.delete]
            .into_iter()
            .flatten()
        {
            if let Ok(body) = serde_json::to_value(&op.request_body) {
                refs(&body, &mut pending);
            }
        }
    }
    let schemas = spec.components.as_ref().map(|c| &c.schemas);
    let mut seen = std::collections::BTreeSet::new();
    while let Some(name) = pending.pop() {
        if seen.insert(name.clone())
            && let Some(schema) = schemas.and_then(|s| s.get(&name))
            && let Ok(value) = serde_json::to_value(schema)
        {
            refs(&value, &mut pending);
        }
    }
    seen
}

fn operations(spec: &mut OpenApi) -> impl Iterator<Item = &mut Operation> {
    spec.paths.paths.values_mut().flat_map(|item| {
        [
            &mut item.get,
            &mut item.post,
            &mut item.put,
            &mut item.delete,
            &mut item.patch,
        ]
        .into_iter()
        .flatten()
    })
}

/// OpenAPI requires a description on every response; where a route gives
/// none, the status's reason phrase stands in.
fn fill_response_descriptions(spec: &mut OpenApi) {
    for op in operations(spec) {
        for (status, response) in &mut op.responses.responses {
            if let RefOr::T(r) = response
                && r.description.is_empty()
            {
                let reason = status
                    .parse::<u16>()
                    .ok()
                    .and_then(|s| axum::http::StatusCode::from_u16(s).ok())
                    .and_then(|s| s.canonical_reason());
                r.description = reason.unwrap_or("response").to_owned();
            }
        }
    }
}

fn string(min: usize, max: Option<usize>, pattern: Option<&str>) -> Object {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .min_length(Some(min))
        .max_length(max)
        .pattern(pattern)
        .build()
}

/// `Idempotency-Key`, wherever it is taken: the rule of
/// `lendhub_domain::idempotency::valid_key` (8 to 128 printable ASCII
/// characters, no space), never null.
fn bound_idempotency_key(op: &mut Operation) {
    for p in op.parameters.iter_mut().flatten() {
        if let RefOr::T(p) = p
            && p.parameter_in == ParameterIn::Header
            && p.name.eq_ignore_ascii_case("idempotency-key")
        {
            p.schema = Some(RefOr::T(Schema::Object(string(
                8,
                Some(128),
                Some("^[!-~]+$"),
            ))));
        }
    }
}

/// A list's two cursors, `starting_after` and `ending_before`, may not be
/// sent together. Parameters cannot depend on each other in OpenAPI, so the
/// pair becomes one exploded form object (the same query keys on the wire)
/// whose schema says "not both".
fn exclusive_cursors(op: &mut Operation) {
    let Some(params) = op.parameters.as_mut() else {
        return;
    };
    let is_cursor = |p: &Parameter| {
        p.parameter_in == ParameterIn::Query
            && matches!(p.name.as_str(), "starting_after" | "ending_before")
    };
    let cursors_sent = params
        .iter()
        .filter(|p| matches!(p, RefOr::T(p) if is_cursor(p)))
        .count();
    if cursors_sent != 2 {
        return;
    }
    let mut cursors = ObjectBuilder::new().schema_type(Type::Object);
    let mut at = None;
    let mut kept = Vec::with_capacity(params.len());
    for (i, p) in std::mem::take(params).into_iter().enumerate() {
        let p = match p {
            RefOr::T(p) if is_cursor(&p) => p,
            other => {
                kept.push(other);
                continue;
            }
        };
        at.get_or_insert(i);
        let schema = match p.schema {
            Some(RefOr::T(Schema::Object(mut o))) => {
                // An empty cursor names nothing; it is not "absent".
                o.min_length = Some(o.min_length.unwrap_or(1).max(1));
                o.description = p.description.clone();
                Schema::Object(o)
            }
            _ => Schema::Object(string(1, None, None)),
        };
        cursors = cursors.property(p.name, schema);
    }
    let mut cursors = cursors.build();
    // utoipa models no `not`; its extension map is written flat into the
    // schema object, so the keyword goes there.
    cursors.extensions = Some(Extensions::from_iter([(
        "not",
        json!({"required": ["starting_after", "ending_before"]}),
    )]));
    let mut pair = Parameter::new("cursor");
    pair.parameter_in = ParameterIn::Query;
    pair.required = Required::False;
    pair.style = Some(ParameterStyle::Form);
    pair.explode = Some(true);
    pair.description = Some(
        "`starting_after` (the next page) or `ending_before` (the previous page): \
         an id from the page before; not both"
            .to_owned(),
    );
    pair.schema = Some(RefOr::T(Schema::Object(cursors)));
    kept.insert(at.unwrap_or(kept.len()).min(kept.len()), RefOr::T(pair));
    *params = kept;
}
