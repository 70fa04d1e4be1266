//! `lendhub underwriting …`: the lender's underwriters settle referred
//! decisions of the REST tier, and the lender's owner releases a locked one.
//! Every act is logged (`lendhub underwriting log`); the partner sees the
//! settled decision and a second `decision.completed`.

use anyhow::bail;
use clap::Subcommand;
use lendhub_domain::clock::Clock;
use lendhub_domain::ids::{DecisionId, HubId};
use lendhub_domain::lending::application::{Decision, UnderwritingAct};
use lendhub_domain::sandbox::decisioning::ReasonCode;
use lendhub_domain::tenant::{Tenant, TenantKind};
use lendhub_hub::flows::underwrite::{self, Ruling};
use lendhub_store::Store;
use lendhub_system::SystemClock;
use serde_json::{Value, json};

use crate::config::Config;

#[derive(Subcommand, Debug)]
pub enum UnderwritingCommand {
    /// Referred applications waiting for an underwriter, oldest first; one
    /// JSON object per line.
    Queue {
        #[arg(long, default_value_t = 50)]
        limit: u32,
    },
    /// Approve a referral: an offer for the amount and term asked, priced by
    /// the credit score; the partner gets a second decision.completed.
    Approve {
        /// The referred decision (`dec_…`).
        decision_id: String,
        /// Who decides (kept in the log).
        #[arg(long)]
        underwriter: String,
        /// Why (kept in the log).
        #[arg(long)]
        note: String,
    },
    /// Decline a referral for one of the seed's reason codes
    /// (affordability_low, credit_adverse, thin_file, director_risk, …).
    Decline {
        decision_id: String,
        #[arg(long)]
        underwriter: String,
        #[arg(long)]
        reason: String,
        #[arg(long)]
        note: String,
    },
    /// The owner's release of a locked decision (offer accepted and signed):
    /// the acceptance is set aside so the decision can change. Needs --sudo.
    Release {
        decision_id: String,
        /// The lender's owner who releases it (kept in the log).
        #[arg(long)]
        owner: String,
        /// Why (kept in the log).
        #[arg(long)]
        reason: String,
        /// Confirms an owner's privileged act.
        #[arg(long)]
        sudo: bool,
    },
    /// The underwriting log, oldest first; of one decision with --decision.
    Log {
        #[arg(long)]
        decision: Option<String>,
    },
}

pub async fn underwriting(command: UnderwritingCommand, config: &Config) -> anyhow::Result<()> {
    let store = super::database::open_existing_store(config).await?;
    let result = run(command, store.as_ref(), config).await;
    store.close().await;
    result
}

pub(crate) fn whose(owner: &Tenant) -> Value {
    match owner.kind() {
        TenantKind::Partner {
            client_id,
            livemode,
            ..
        } => json!({"client_id": client_id, "livemode": livemode}),
        TenantKind::SandboxClient(id) => json!({"client_id": id, "livemode": false}),
    }
}

fn shown(d: &Decision) -> Value {
    json!({
        "decision_id": d.id.as_str(),
        "application_id": d.application_id.as_str(),
        "partner": whose(&d.owner),
        "outcome": d.verdict.outcome.as_str(),
        "reasons": d.verdict.reasons.iter().map(|r| r.code.as_str()).collect::<Vec<_>>(),
        "offer": d.verdict.offer.as_ref().map(|o| json!({
            "amount_pence": o.amount_pence.as_pence(), "term_months": o.term_months, "apr": o.apr,
            "monthly_repayment_pence": o.monthly_repayment_pence.as_pence(),
        })),
        "locked": d.locked(),
    })
}

fn logged(a: &UnderwritingAct) -> Value {
    json!({
        "decision_id": a.decision_id.as_str(), "partner": whose(&a.owner), "act": a.act.as_str(),
        "actor": a.actor, "note": a.note,
        "at": a.at.format(&time::format_description::well_known::Rfc3339).unwrap_or_default(),
    })
}

async fn run(
    command: UnderwritingCommand,
    store: &dyn Store,
    config: &Config,
) -> anyhow::Result<()> {
    let now = SystemClock.now();
    // The applicant's e-mail links to the journey at the hub's public
    // address (`hub.public_url`; the configured listen address if unset).
    let apply_url = lendhub_hub::Urls::new(&config.hub.public_url(config.hub.addr))
        .apply()
        .to_owned();
    let books = underwrite::Books {
        lending: store,
        commercial: store,
        units: store,
        apply_url: &apply_url,
        brands: store,
    };
    match command {
        UnderwritingCommand::Queue { limit } => {
            for r in underwrite::queue(store, limit).await? {
                let mut line = shown(&r.decision);
                line["company_number"] = json!(r.application.company_number);
                line["company_name"] = json!(r.application.company_name);
                line["reference"] = json!(r.application.reference);
                println!("{line}");
            }
        }
        UnderwritingCommand::Approve {
            decision_id,
            underwriter,
            note,
        } => {
            let d = underwrite::settle(
                &books,
                &decision_id,
                Ruling::Approve,
                &underwriter,
                &note,
                now,
            )
            .await?;
            println!("{}", shown(&d));
        }
        UnderwritingCommand::Decline {
            decision_id,
            underwriter,
            reason,
            note,
        } => {
            let Some(code) = ReasonCode::parse(&reason) else {
                let codes: Vec<&str> = ReasonCode::ALL.iter().map(|c| c.as_str()).collect();
                bail!("unknown reason {reason}; one of {}", codes.join(", "));
            };
            let ruling = Ruling::Decline(code);
            let d =
                underwrite::settle(&books, &decision_id, ruling, &underwriter, &note, now).await?;
            println!("{}", shown(&d));
        }
        UnderwritingCommand::Release {
            decision_id,
            owner,
            reason,
            sudo,
        } => {
            if !sudo {
                bail!(
                    "releasing a signed decision is the lender's owner's act: confirm with --sudo (it is logged)"
                );
            }
            let d = underwrite::release(store, store, &decision_id, &owner, &reason, now).await?;
            println!("{}", shown(&d));
        }
        UnderwritingCommand::Log { decision } => {
            let acts = match decision.as_deref().map(DecisionId::parse) {
                None => store.underwriting_log(None).await?,
                Some(Some(id)) => store.underwriting_log(Some(&id)).await?,
                // No decision has an id of another shape: its log is empty.
                Some(None) => Vec::new(),
            };
            for a in acts {
                println!("{}", logged(&a));
            }
        }
    }
    Ok(())
}
