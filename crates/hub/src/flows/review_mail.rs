//! The e-mail that tells an applicant an underwriter has decided their
//! referred application (issue #51 item 5): the referred page promises it.
//! It goes to the person who applied on the hosted journey, or else to the
//! applicant the partner named; with neither, the partner tells them.

use lendhub_domain::lending::application::{Application, Decision, cooling_off_until};
use lendhub_domain::lending::journey::Journey;
use lendhub_domain::people;
use lendhub_domain::sandbox::decisioning::Outcome;
use lendhub_domain::tenant::TenantKind;
use lendhub_store::PublicWrite;
use time::OffsetDateTime;

/// The mail for `settled`, the decision an underwriter just made, whose
/// journey page is `link`; `partner` is the name the applicant knows the
/// partner by, if it gave one.
pub fn review_mail(
    application: &Application,
    journey: Option<&Journey>,
    settled: &Decision,
    (link, partner): (&str, Option<&str>),
    now: OffsetDateTime,
) -> Option<PublicWrite> {
    let person = journey.and_then(|j| j.applicant.as_ref());
    let recipient = person
        .map(|p| p.email.clone())
        .or_else(|| application.applicant.email.clone())?;
    let name = person
        .map(|p| p.given_name.clone())
        .or_else(|| application.applicant.first_name.clone())
        .filter(|n| !n.trim().is_empty());
    let greeting = name.map_or_else(|| "Hello".to_owned(), |n| format!("Dear {}", n.trim()));
    let live = matches!(
        application.owner.kind(),
        TenantKind::Partner { livemode: true, .. }
    );
    let test = if live { "" } else { "[TEST] " };
    let company = &application.company_name;
    let (subject, news) = match (settled.verdict.outcome, &settled.verdict.offer) {
        (Outcome::Approved, Some(offer)) => (
            format!("{test}Your loan for {company} is approved"),
            format!(
                "An underwriter has approved the application for {company}: {amount} over {term} \
                 months, repaid at {monthly} a month ({total} in all, representative APR {apr}%).\n\n\
                 To read the loan agreement and sign it, open this page and sign in with this \
                 e-mail address:\n\n{link}\n\nThe offer is open until {until}.",
                amount = people::money(offer.amount_pence),
                term = offer.term_months,
                monthly = people::money(offer.monthly_repayment_pence),
                total = people::money(offer.total_repayable_pence),
                apr = offer.apr,
                until = settled
                    .expires_at
                    .map_or_else(|| "you sign or it is withdrawn".to_owned(), people::moment),
            ),
        ),
        _ => (
            format!("{test}Your loan application for {company}"),
            format!(
                "An underwriter has reviewed the application for {company}, and we cannot offer \
                 a loan this time.\n\n{reasons}\n\nThe company can apply again from {again}. The \
                 page below gives the reasons and where else to find help:\n\n{link}",
                reasons = settled
                    .verdict
                    .reasons
                    .iter()
                    .map(|r| people::reason(r.code))
                    .collect::<Vec<_>>()
                    .join(" "),
                again = people::date(people::first_whole_day(cooling_off_until(now))),
            ),
        ),
    };
    Some(PublicWrite::Mail {
        id: format!("mail_{}_reviewed", settled.id),
        recipient,
        subject,
        body: format!(
            "{greeting},\n\n{news}\n{}",
            partner.map_or_else(String::new, |p| format!("\nYou applied through {p}.\n"))
        ),
        due_ms: lendhub_domain::clock::unix_ms(now),
    })
}
