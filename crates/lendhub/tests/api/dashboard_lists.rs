//! The dashboard's lists as a person pages and searches them (issue #51
//! item 4): where a page sits among its pages and the links either side,
//! and one search box over references, company names and numbers and ids;
//! and the script the Copy buttons need, the only one the dashboard's CSP
//! lets a page run.

use lendhub_domain::partner::project::Tier;
use serde_json::json;

use crate::dashboard::{sign_in, staff};
use crate::rest_tier::{api_key, rest_app, rest_get, rest_partner, rest_post};
use crate::support::oidc::{self, Page};

/// The `href` of the link with `id`, as a browser would follow it.
fn link(page: &Page, id: &str) -> Option<String> {
    let marker = format!("id=\"{id}\" rel=\"");
    let at = page.body.find(&marker)?;
    let rest = &page.body[at..];
    let href = &rest[rest.find("href=\"")? + 6..];
    // Askama writes `&` as `&#38;`.
    Some(href[..href.find('"')?].replace("&#38;", "&"))
}

fn position(page: &Page) -> String {
    let rest = &page.body[page.body.find("id=\"page-position\">").unwrap() + 19..];
    rest[..rest.find("</p>").unwrap()].to_owned()
}

fn listed(page: &Page) -> Vec<String> {
    page.body
        .match_indices("<td class=\"reference\">")
        .map(|(at, m)| {
            let rest = &page.body[at + m.len()..];
            rest[..rest.find('<').unwrap()].to_owned()
        })
        .collect()
}

#[tokio::test]
async fn staff_page_through_applications_and_find_one_by_any_part_of_it() {
    let app = rest_app().await;
    let (client, _) = rest_partner(&app, "applications.read applications.write", Tier::Scale).await;
    let key = api_key(&app, &client, "test", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    // POST /applications has the seed's sub-limit of 5 a second: each
    // comes a second after the last.
    let create = async |company: &str, reference: &str| {
        app.advance(time::Duration::seconds(1));
        let r = rest_post(
            &app,
            "/sandbox/v1/applications",
            &key,
            json!({"business": {"company_number": company}, "amount_pence": 1_000_000,
                   "term_months": 12, "applicant": {"email": "founder@example.com"},
                   "reference": reference}),
        )
        .await;
        assert_eq!(r.status, 201, "{}", r.body);
        r.body["id"].as_str().unwrap().to_owned()
    };
    let mut english = String::new();
    for n in 1..=26 {
        english = create("00000401", &format!("LIST-{n:02}")).await;
    }
    let scottish = create("SC123456", "OTHER-1").await;
    let name = async |id: &str| {
        rest_get(&app, &format!("/sandbox/v1/applications/{id}"), Some(&key))
            .await
            .body["business"]["name"]
            .as_str()
            .unwrap()
            .to_lowercase()
    };
    let (company, other) = (name(&scottish).await, name(&english).await);
    // A word of the one company's name that the other's does not hold.
    let word = company
        .split_whitespace()
        .find(|w| !other.contains(w))
        .unwrap()
        .to_owned();

    let person = oidc::person(&app).await;
    staff(&app, &client, &person, "read_only");
    let (hub, _) = sign_in(&app, &person).await;

    // Newest first, 25 a page, and where each page sits.
    let first = hub.get("/dashboard/applications?env=test").await;
    assert_eq!(first.status, 200, "{}", first.body);
    assert_eq!(
        position(&first),
        "Page 1: applications 1 to 25, newest first."
    );
    assert_eq!(listed(&first).len(), 25);
    assert_eq!(listed(&first)[0], "OTHER-1");
    assert_eq!(
        link(&first, "newer"),
        None,
        "nothing is newer than the first"
    );
    let second = hub.get(&link(&first, "next").unwrap()).await;
    assert_eq!(
        position(&second),
        "Page 2: applications 26 to 27, newest first."
    );
    assert_eq!(listed(&second), ["LIST-02", "LIST-01"]);
    assert_eq!(
        link(&second, "next"),
        None,
        "nothing is older than the last"
    );
    let back = hub.get(&link(&second, "newer").unwrap()).await;
    assert_eq!(
        position(&back),
        "Page 1: applications 1 to 25, newest first."
    );
    assert_eq!(listed(&back), listed(&first));

    // One box: a reference's part in any case, a company's number or a
    // word of its name, an id's part; wildcards are only characters.
    let id_part = &scottish[10..22];
    for (q, expected) in [
        ("list-0", 9),
        ("sc123456", 1),
        (word.as_str(), 1),
        (id_part, 1),
        ("%", 0),
        ("nobody-at-all", 0),
    ] {
        let found = hub
            .get(&format!(
                "/dashboard/applications?env=test&q={}",
                url::form_urlencoded::byte_serialize(q.as_bytes()).collect::<String>()
            ))
            .await;
        assert_eq!(found.status, 200);
        assert_eq!(listed(&found).len(), expected, "{q}: {}", found.body);
        if expected == 0 {
            assert!(found.body.contains("No applications match."));
        }
    }
    let one = hub
        .get(&format!("/dashboard/applications?env=test&q={word}"))
        .await;
    assert_eq!(listed(&one), ["OTHER-1"]);
    assert!(
        one.body.contains(&format!("value=\"{word}\"")),
        "the box keeps what was searched"
    );
    // A search pages like the whole list, its links keeping the search.
    let many = hub.get("/dashboard/applications?env=test&q=LIST").await;
    assert_eq!(listed(&many).len(), 25);
    let rest = link(&many, "next").unwrap();
    assert!(rest.contains("q=LIST"), "{rest}");
    assert_eq!(listed(&hub.get(&rest).await), ["LIST-01"]);
    // The other environment's applications are not found in this one.
    let live = hub.get("/dashboard/applications?env=live&q=list").await;
    assert!(live.body.contains("No applications match."));

    // The page may run lendhub's own script and no other, never inline;
    // the script is served as JavaScript.
    let policy = first.headers["content-security-policy"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(policy.contains("script-src 'self';"), "{policy}");
    assert!(policy.contains("default-src 'none'"), "{policy}");
    assert!(
        first
            .body
            .contains("<script src=\"/dashboard/assets/dashboard.js\" defer></script>")
    );
    let script = app
        .http
        .get(format!("{}/dashboard/assets/dashboard.js", app.hub))
        .send()
        .await
        .unwrap();
    assert_eq!(script.status(), 200);
    assert_eq!(
        script.headers()["content-type"],
        "text/javascript; charset=utf-8"
    );
    assert_eq!(script.headers()["x-content-type-options"], "nosniff");
    let etag = script.headers()["etag"].clone();
    assert!(script.text().await.unwrap().contains("data-copy"));
    let again = app
        .http
        .get(format!("{}/dashboard/assets/dashboard.js", app.hub))
        .header("if-none-match", etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 304);
}
