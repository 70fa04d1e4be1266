//! The documents and the router agree (issue #49 item 6): no document names
//! an endpoint of lendhub's that answers `503` while it is served, and
//! none says an endpoint answers `503` while the router serves it.
//!
//! With the REST tier switched on, every operation of the three OpenAPI
//! documents, and every endpoint of lendhub's that README.md or a chapter
//! of the guide names (`POST /partner/v1/…`, or `GET /accounts/{id}` where
//! that is an operation of the REST tier), is called for real: it must
//! reach its handler (any answer but `503 service_unavailable`, an unknown
//! route or a refused method). A sentence that says an endpoint it names
//! is not served yet (answers `503` and says "planned", "not yet" or "not
//! served") must name only endpoints that do answer `503`.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use lendhub_domain::partner::project::Tier;
use lendhub_domain::partner::scope::{PartnerScope, PartnerScopes, Scope};
use serde_json::Value;

use crate::rest_tier::{api_key, rest_app, rest_partner};

const METHODS: [&str; 5] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/// The repository's documents a reader is sent to.
fn documents() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = vec![root.join("README.md")];
    let guide = root.join("docs/guide/src");
    for entry in std::fs::read_dir(&guide).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            files.push(path);
        }
    }
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

/// `{id}`-style templates match any one segment.
fn matches(template: &str, path: &str) -> bool {
    let (t, p): (Vec<&str>, Vec<&str>) = (template.split('/').collect(), path.split('/').collect());
    t.len() == p.len()
        && t.iter()
            .zip(&p)
            .all(|(t, p)| (t.starts_with('{') && t.ends_with('}')) || t == p)
}

struct Catalogue {
    /// (mount, path template, method) of every operation lendhub documents.
    operations: Vec<(&'static str, String, String)>,
}

impl Catalogue {
    fn load() -> Catalogue {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/openapi");
        let mut operations = Vec::new();
        for (file, mount) in [
            ("partner.json", "rest"),
            ("sandbox.json", "sandbox"),
            ("public.json", "public"),
        ] {
            let doc: Value =
                serde_json::from_str(&std::fs::read_to_string(root.join(file)).unwrap()).unwrap();
            for (path, item) in doc["paths"].as_object().unwrap() {
                for method in item.as_object().unwrap().keys() {
                    let method = method.to_uppercase();
                    if METHODS.contains(&method.as_str()) {
                        operations.push((mount, path.clone(), method));
                    }
                }
            }
        }
        Catalogue { operations }
    }

    /// The operation a document's `METHOD /path` names, if it is lendhub's:
    /// with `any_method`, a path of lendhub's named with a method it may not
    /// have.
    fn find(
        &self,
        method: &str,
        path: &str,
        any_method: bool,
    ) -> Option<(&'static str, String, String)> {
        let path = path
            .split(['?', '#'])
            .next()
            .unwrap_or(path)
            .trim_end_matches(['…', '.', ',']);
        let candidates: Vec<(&str, &str)> = if let Some(rest) = path
            .strip_prefix("/partner/v1")
            .or_else(|| path.strip_prefix("/sandbox/v1"))
        {
            vec![("rest", rest)]
        } else if let Some(rest) = path.strip_prefix("/public/v1") {
            vec![("public", rest)]
        } else {
            vec![("sandbox", path), ("rest", path)]
        };
        candidates.into_iter().find_map(|(mount, p)| {
            self.operations
                .iter()
                .find(|(m, t, op)| *m == mount && (any_method || op == method) && matches(t, p))
                .map(|(m, t, _)| (*m, t.clone(), method.to_owned()))
        })
    }
}

/// The prose of a Markdown document, fenced code blocks left out (their
/// backticks would pair with the prose's).
fn prose(text: &str) -> String {
    let mut fenced = false;
    text.lines()
        .filter(|line| {
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
                return false;
            }
            !fenced
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every `METHOD /path` in backticks, with the sentence it is in.
fn mentions(text: &str) -> Vec<(String, String, String)> {
    let mut found = Vec::new();
    let prose = prose(text);
    for paragraph in prose.split("\n\n") {
        // A table's row is its own sentence; elsewhere sentences end at
        // ". ", an abbreviation's full stop aside.
        let paragraph = paragraph
            .replace("e.g. ", "e.g.\u{a0}")
            .replace("i.e. ", "i.e.\u{a0}");
        let sentences: Vec<&str> = if paragraph.trim_start().starts_with('|') {
            paragraph.lines().collect()
        } else {
            paragraph.split(". ").collect()
        };
        for sentence in sentences {
            for code in sentence.split('`').skip(1).step_by(2) {
                let mut words = code.split_whitespace();
                let (Some(methods), Some(path)) = (words.next(), words.next()) else {
                    continue;
                };
                if !path.starts_with('/') {
                    continue;
                }
                for method in methods.split('|') {
                    if METHODS.contains(&method) {
                        found.push((
                            method.to_owned(),
                            path.to_owned(),
                            sentence.trim().to_owned(),
                        ));
                    }
                }
            }
        }
    }
    found
}

fn says_unserved(sentence: &str) -> bool {
    sentence.contains("503")
        && ["planned", "not yet", "not served"]
            .iter()
            .any(|w| sentence.contains(w))
}

#[tokio::test]
async fn every_documented_endpoint_is_served_and_none_is_said_to_answer_503() {
    let app = rest_app().await;
    let scopes = PartnerScopes::all();
    let scopes = scopes.render();
    assert!(scopes.split(' ').count() == PartnerScope::ALL.len());
    let (client, _) = rest_partner(&app, &scopes, Tier::Platform).await;
    let test_key = api_key(&app, &client, "test", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let token = app.caller().await;
    let catalogue = Catalogue::load();

    // What the router answers each operation (ids that do not exist: the
    // handler's own 404, 400 or 422 shows the route is served).
    let live_key = api_key(&app, &client, "live", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let call = async |url: String, method: &str, bearer: Option<&str>| -> (u16, String) {
        let mut request = app
            .http
            .request(method.parse().unwrap(), &url)
            .header("Content-Type", "application/json");
        if let Some(b) = bearer {
            request = request.bearer_auth(b);
        }
        if method != "GET" && method != "DELETE" {
            request = request.body("{}");
        }
        let r = request.send().await.unwrap();
        let status = r.status().as_u16();
        let body: Value = r.json().await.unwrap_or(Value::Null);
        let code = body["error"]["code"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        (status, code)
    };
    let unserved = |(status, code): &(u16, String)| {
        *status == 503 && code == "service_unavailable"
            || code == "route_not_found"
            || *status == 405
    };
    // What the router answers each operation (ids that do not exist: the
    // handler's own 404, 400 or 422 shows the route is served). The REST
    // tier is asked in the test environment, then live: the token plane and
    // MCP are live only.
    let answer = async |(mount, template, method): &(&str, String, String)| -> (u16, String) {
        let path = template
            .split('/')
            .map(|s| {
                if s.starts_with('{') {
                    "x_00000000000000000000000000"
                } else {
                    s
                }
            })
            .collect::<Vec<_>>()
            .join("/");
        match *mount {
            "rest" => {
                let test = call(
                    format!("{}/sandbox/v1{path}", app.hub),
                    method,
                    Some(&test_key),
                )
                .await;
                if !unserved(&test) {
                    return test;
                }
                call(
                    format!("{}/partner/v1{path}", app.hub),
                    method,
                    Some(&live_key),
                )
                .await
            }
            "public" => call(format!("{}/public/v1{path}", app.hub), method, None).await,
            _ => call(app.url(&path), method, Some(&token)).await,
        }
    };
    // Each operation is called once (the public ring allows 60 a minute).
    let mut answers: HashMap<(&str, String, String), (u16, String)> = HashMap::new();
    for operation in &catalogue.operations {
        answers.insert(operation.clone(), answer(operation).await);
    }
    let mut wrong = Vec::new();
    for operation in &catalogue.operations {
        let got = answers[operation].clone();
        if unserved(&got) {
            wrong.push(format!(
                "the OpenAPI document names {} {} ({}): it answers {got:?}",
                operation.2, operation.1, operation.0
            ));
        }
    }

    let mut checked = BTreeSet::new();
    for (file, text) in documents() {
        for (method, path, sentence) in mentions(&text) {
            // A family of paths (`/payments/schedules…`), or a wrong method
            // named as the example of a 405.
            if path.ends_with('…') || sentence.contains("method_not_allowed") {
                continue;
            }
            let got = match catalogue.find(&method, &path, false) {
                Some(operation) => answers[&operation].clone(),
                // A path of lendhub's, named with a method it lacks.
                None => match catalogue.find(&method, &path, true) {
                    Some(operation) => answer(&operation).await,
                    None => continue,
                },
            };
            checked.insert((method.clone(), path.clone()));
            if says_unserved(&sentence) && !unserved(&got) {
                wrong.push(format!(
                    "{file}: says {method} {path} answers 503, but it is served: {sentence:?}"
                ));
            }
            if !says_unserved(&sentence) && unserved(&got) {
                wrong.push(format!(
                    "{file}: names {method} {path}, which answers {got:?}"
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // The documents name a good part of the API: the check is not vacuous.
    assert!(checked.len() > 40, "{checked:?}");
}

#[test]
fn a_mention_is_found_with_its_sentence_and_matched_to_its_operation() {
    let found = mentions(
        "Call `GET|POST /partner/v1/accounts/{id}` now. Or `lendhub serve`.\n\n```sh\necho `x`\n```\n\nThen `GET /events`.",
    );
    assert_eq!(found.len(), 3);
    assert_eq!(found[2].2, "Then `GET /events`.");
    assert_eq!(found[1].0, "POST");
    assert!(matches("/accounts/{id}", "/accounts/acc_1"));
    assert!(!matches("/accounts/{id}", "/accounts/acc_1/balance"));
    assert!(says_unserved("The marketplace answers `503` (planned)"));
    assert!(!says_unserved(
        "`GET /healthz` answers 503 when the database is down"
    ));
}
