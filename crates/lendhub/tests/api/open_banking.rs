//! Account information over UK Open Banking (issue #46 item 2): the live
//! environment reaching a model bank that runs as its own process,
//! configured by `counterparties.live.open_banking.banks.<id>`; the hosted
//! journey in Chromium through the bank's consent page and lendhub's
//! callback; a bank down when the consent is asked for and a payer who
//! declines at the bank, each a page that lets them go on; and every JSON
//! body both sides exchanged checked against the standard's OpenAPI
//! documents.

use lendhub_domain::partner::project::Tier;
use serde_json::{Value, json};

use crate::rest_journey::{EMAIL, PASSWORD, applicant};
use crate::rest_tier::{api_key, rest_get, rest_partner, rest_post as post};
use crate::support::process::Simulator;
use crate::support::*;

const CLIENT: (&str, &str) = ("lendhub-live", "model-bank-secret");

/// `lendhub simulate bank`, its own process.
struct ModelBank {
    // Runs as long as this lives.
    _process: Simulator,
    url: String,
}

impl ModelBank {
    fn launch(redirect_uri: &str) -> Self {
        let process = Simulator::launch(
            &[
                "bank",
                "--addr",
                "127.0.0.1:0",
                "--client-id",
                CLIENT.0,
                "--redirect-uri",
                redirect_uri,
            ],
            ("LENDHUB_MODEL_CLIENT_SECRET", CLIENT.1),
            "model bank listening on",
        );
        Self {
            url: process.url.clone(),
            _process: process,
        }
    }

    async fn exchanges(&self) -> Value {
        reqwest::Client::new()
            .get(format!("{}/_model/exchanges", self.url))
            .basic_auth(CLIENT.0, Some(CLIENT.1))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }
}

/// A loopback port free now, for a hub whose public URL the bank must know
/// before the hub starts.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[tokio::test]
async fn the_live_journey_reads_the_account_at_a_bank_in_its_own_process() {
    let port = free_port();
    let hub = format!("http://127.0.0.1:{port}");
    let bank = ModelBank::launch(&format!("{hub}/open-banking/callback"));
    let site = Site::new().await;
    let mut config = test_config(&site);
    config.rest_tier.enabled = true;
    config.hub.addr = format!("127.0.0.1:{port}").parse().unwrap();
    config.hub.public_url = Some(hub.parse().unwrap());
    config.counterparties.live.open_banking.banks.insert(
        "acme_bank".into(),
        lendhub::config::Bank {
            name: "Acme Bank".into(),
            discovery_url: format!("{}/.well-known/openid-configuration", bank.url),
            api_base_url: format!("{}/open-banking/v3.1", bank.url),
            client_id: CLIENT.0.into(),
            client_secret: CLIENT.1.to_owned().into(),
        },
    );
    let app = App::spawn_with(config, site).await;
    applicant(&app).await;
    let (client, _) =
        rest_partner(&app, "applications.read applications.write", Tier::Platform).await;
    let live = api_key(&app, &client, "live", None)["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let created = post(
        &app,
        "/partner/v1/applications",
        &live,
        json!({"business": {"company_number": "00000401"}, "amount_pence": 1_000_000,
               "term_months": 24, "redirect_uri": "https://partner.example/done"}),
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.body);
    let id = created.body["id"].as_str().unwrap().to_owned();

    let r = python_json(
        "apply_browser.py",
        vec![
            (
                "START_URL",
                created.body["handoff_url"].as_str().unwrap().to_owned(),
            ),
            ("EMAIL", EMAIL.to_owned()),
            ("PASSWORD", PASSWORD.to_owned()),
            ("DOB", "1985-04-12".to_owned()),
            ("BANK", "acme_bank".to_owned()),
            ("ACCOUNT", "strong".to_owned()),
            ("SIGN", "no".to_owned()),
            ("MODEL_BANK", bank.url.clone()),
            ("MODEL_BANK_CLIENT", format!("{}:{}", CLIENT.0, CLIENT.1)),
            ("DECLINE_FIRST", "yes".to_owned()),
        ],
    )
    .await;
    // The bank down when asked for the consent: the choice again, saying so.
    assert!(
        r["bank_down"]
            .as_str()
            .unwrap()
            .contains("could not reach Acme Bank"),
        "{r}"
    );
    // Declined at the bank: back at the choice, told what happened.
    assert!(
        r["bank_declined"]
            .as_str()
            .unwrap()
            .contains("did not give access at Acme Bank"),
        "{r}"
    );
    // Then approved: the account read, the decision made on its cash flow.
    assert_eq!(r["bank_url"], format!("{}/authorize", bank.url), "{r}");
    assert_eq!(r["outcome"], "approved", "{r}");
    let stored = rest_get(&app, &format!("/partner/v1/applications/{id}"), Some(&live)).await;
    assert_eq!(stored.body["status"], "approved", "{}", stored.body);

    // Everything exchanged, both ways, is what the standard describes.
    let exchanges = bank.exchanges().await;
    let file = app._site.path().join("exchanges.json");
    std::fs::write(&file, exchanges.to_string()).unwrap();
    let spec = format!(
        "{}/../models/spec/open-banking-v3.1.11r5/account-info-openapi.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let checked = python_json(
        "open_banking_conformance.py",
        vec![("EXCHANGES", file.display().to_string()), ("SPECS", spec)],
    )
    .await;
    assert_eq!(checked["problems"], json!([]), "{checked}");
    assert_eq!(
        checked["operations"],
        json!([
            "GET /accounts",
            "GET /accounts/{AccountId}/balances",
            "GET /accounts/{AccountId}/transactions",
            "POST /account-access-consents"
        ]),
        "{checked}"
    );
    // A year of transactions is more than one page: Links.Next was followed.
    let pages = exchanges
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["operation"] == "GET /accounts/{AccountId}/transactions")
        .count();
    assert!(pages >= 2, "{pages} pages of transactions read");
    // Every request carried the standard's interaction id and a token.
    for x in exchanges.as_array().unwrap() {
        assert!(x["headers"]["x-fapi-interaction-id"].is_string(), "{x}");
        assert_eq!(x["headers"]["authorization"], "present", "{x}");
    }
}
