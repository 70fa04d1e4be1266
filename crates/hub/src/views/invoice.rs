//! A statement's invoice (or self-billed remittance) as a printable page:
//! what `GET /statements/{id}/invoice` answers and the dashboard shows.

use askama::Template;
use axum::http::StatusCode;
use axum::response::Response;
use lendhub_domain::billing::statement::{Payer, Statement, Status};
use lendhub_domain::money::Money;
use lendhub_domain::people::Pounds;
use lendhub_domain::tenant::TenantKind;

use crate::html::render;

struct LineRow {
    account: String,
    partner_ref: String,
    funded: String,
    principal: Pounds,
    margin: Pounds,
    amount: Pounds,
}

struct AdjustmentRow {
    corrects: String,
    reason: String,
    amount: Pounds,
}

struct PayoutRow {
    sub_account: String,
    introductions: u32,
    gross: Pounds,
}

#[derive(Template)]
#[template(path = "billing/invoice.html")]
struct Invoice {
    title: &'static str,
    draft: bool,
    number: String,
    from: &'static str,
    to: String,
    period: String,
    invoice_date: String,
    pay_date: String,
    model: &'static str,
    tier: String,
    originations: u32,
    volume: Pounds,
    amount_heading: &'static str,
    lines: Vec<LineRow>,
    payouts: Vec<PayoutRow>,
    adjustments: Vec<AdjustmentRow>,
    total_label: &'static str,
    total: Pounds,
    note: &'static str,
}

fn date(d: time::Date) -> String {
    lendhub_domain::people::date(d)
}

impl Invoice {
    fn new(s: &Statement) -> Self {
        let partner = match s.owner.kind() {
            TenantKind::Partner {
                client_id,
                livemode,
                ..
            } => format!(
                "Partner {client_id}{}",
                if livemode { "" } else { " (test environment)" }
            ),
            TenantKind::SandboxClient(id) => format!("Sandbox client {id}"),
        };
        // Who pays decides the document; the model, what its lines are.
        let fee = s.payable_by == Payer::Partner;
        let fee_model = s.model == "integration_fee";
        Self {
            title: if fee { "Invoice" } else { "Remittance advice" },
            draft: s.status == Status::Draft,
            number: s.id.to_string(),
            from: "lendhub (the lender)",
            to: partner,
            period: s.period.clone(),
            invoice_date: date(s.invoice_date),
            pay_date: date(s.pay_date),
            model: if fee_model {
                "Integration fee"
            } else {
                "Revenue share"
            },
            tier: s.tier.clone(),
            originations: s.funded_originations,
            volume: Pounds(Money::pence(s.funded_volume_pence)),
            amount_heading: if fee_model { "Fee" } else { "Share" },
            lines: s
                .lines
                .iter()
                .map(|l| LineRow {
                    account: l.account_id.to_string(),
                    partner_ref: l.partner_ref.clone().unwrap_or_default(),
                    funded: date(l.funded_at.date()),
                    principal: Pounds(Money::pence(l.principal_pence)),
                    margin: Pounds(Money::pence(l.net_margin_pence)),
                    amount: Pounds(Money::pence(l.amount_pence)),
                })
                .collect(),
            payouts: s
                .payouts
                .iter()
                .map(|p| PayoutRow {
                    sub_account: p.sub_account_id.to_string(),
                    introductions: p.introductions,
                    gross: Pounds(Money::pence(p.gross_pence)),
                })
                .collect(),
            adjustments: s
                .adjustments
                .iter()
                .map(|a| AdjustmentRow {
                    corrects: a.corrects.clone(),
                    reason: a.reason.clone(),
                    // As the partner's invoice reads: what it owes more.
                    amount: Pounds(Money::pence(if fee {
                        a.amount_pence
                    } else {
                        -a.amount_pence
                    })),
                })
                .collect(),
            total_label: if fee {
                "Total due from the partner"
            } else {
                "Total due to the partner"
            },
            total: Pounds(Money::pence(s.payable_pence)),
            note: if fee_model {
                "Collected on the pay date. Each funded loan is billed once, in the month it funded."
            } else {
                "Remitted on the pay date. A loan's share is of its net margin: its scheduled interest, less the lender's cost of funds and expected loss."
            },
        }
    }
}

/// The statement's invoice (or remittance advice) as a page.
pub fn page(statement: &Statement) -> Response {
    render(StatusCode::OK, &Invoice::new(statement))
}
