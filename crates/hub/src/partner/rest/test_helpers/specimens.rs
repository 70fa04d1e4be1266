//! The default `data.object` of a test event (`POST /test_helpers/events`):
//! what a real event of its type carries, rendered by the views real events
//! use, from one synthetic loan the domain's own constructors and
//! transitions build — so a partner's handler meets the real shape. All of
//! it is made in memory: nothing is looked up or stored, and every id is
//! fresh, naming nothing a caller could read back.

use lendhub_domain::billing::statement::{self, PayoutRecord, Period, Statement, Terms};
use lendhub_domain::ids::{AccountId, HubId, PaymentId, SubAccountId, WebhookEndpointId};
use lendhub_domain::ledger::loan::LoanLedger;
use lendhub_domain::ledger::movements;
use lendhub_domain::ledger::transfer::Transfer;
use lendhub_domain::lending::application::{self, Application, Decision, Request};
use lendhub_domain::lending::kyc::{self, Verification};
use lendhub_domain::lending::register::{self, RegisteredEntity};
use lendhub_domain::lending::underwriting::{CreditFile, Facts, Signals};
use lendhub_domain::money::Money;
use lendhub_domain::partner::sub_account::MASTER_SHARE_BPS;
use lendhub_domain::sandbox::events::{ALL_EVENTS, EventType};
use lendhub_domain::servicing::account::{Account, Moved};
use lendhub_domain::servicing::collection::{FailureReason, NotNow, Payment};
use lendhub_domain::servicing::ledger;
use lendhub_domain::servicing::mandate::Mandate;
use lendhub_domain::servicing::refund_payout::RefundPayout;
use lendhub_domain::servicing::schedule::{Cadence, Schedule};
use lendhub_domain::tenant::{Tenant, TenantKind};
use lendhub_domain::webhooks::endpoint::{EndpointStatus, WebhookEndpoint};
use serde::Serialize;
use serde_json::Value;
use time::OffsetDateTime;

use crate::counterparties::TEST_BANKS;
use crate::flows::close_month;
use crate::flows::sign::accepted_objects;
use crate::partner::state::PartnerState;
use crate::views::account::AccountView;
use crate::views::application::ApplicationView;
use crate::views::decision::DecisionView;
use crate::views::mandate::MandateView;
use crate::views::model_drift::ModelDriftView;
use crate::views::payment::PaymentView;
use crate::views::payout::PayoutView;
use crate::views::schedule::ScheduleView;
use crate::views::statement::StatementView;
use crate::views::verification::VerificationView;
use crate::views::webhook_endpoint::WebhookEndpointView;

/// The register's sample company, which the engine approves for the amount.
const COMPANY: &str = "00000401";
const AMOUNT_PENCE: i64 = 1_000_000;
const TERM_MONTHS: i64 = 24;
const REFERENCE: &str = "TEST-EVENT";
/// The test bank whose account the engine finds affordable.
const PAYOUT_BANK: &str = "test_bank_strong";
/// The embedded model bank, where test payers pay payment links.
const PAYER_BANK: &str = "model_bank";
const PAYMENT_PENCE: i64 = 50_000;
const DIRECTOR_FIRST_NAME: &str = "Ada";
/// A last name the built-in person register clears, and one it finds is
/// not an officer of the company (`kyc::MAGIC_LAST_NAMES`).
const CLEAR_LAST_NAME: &str = "Lovelace";
const OUTSIDER_LAST_NAME: &str = "Outsider";

/// The `data.object` a real event of type `t` would carry, for a coherent
/// synthetic loan of the test environment `owner`, at `now`; its ids drawn
/// from `random`.
pub(super) fn object(
    state: &PartnerState,
    owner: &Tenant,
    t: EventType,
    now: OffsetDateTime,
    random: u128,
) -> Result<Value, String> {
    use EventType::*;
    let ids = &mut Ids::new(now, random);
    let loan = Loan::funded(owner, now, ids)?;
    let application = |a: &Application| json(&ApplicationView::new(a, &state.links));
    match t {
        ApplicationCreated => application(&loan.created),
        ApplicationSubmitted => application(&loan.submitted),
        ApplicationExpired => application(&expired(owner, now, ids)?),
        ApplicationWithdrawn => application(
            &loan
                .created
                .withdraw(Some("The business no longer needs the loan".into()), now)
                .map_err(|e| e.to_string())?
                .ok_or("a new application that cannot be withdrawn")?,
        ),
        ApplicationFunded => application(&loan.funded),
        ApplicationFundingFailed => {
            let (failed, _) = loan
                .signed
                .claim_disbursement(now)
                .and_then(|sent| sent.disbursement_failed(&loan.accepted, "account_closed", now))
                .map_err(|e| e.to_string())?;
            application(&failed)
        }
        DecisionCompleted => json(&DecisionView::new(&loan.decision)),
        OfferAccepted | AgreementSigned => {
            let (offer, agreement) =
                accepted_objects(owner, &loan.accepted, now).map_err(|e| e.to_string())?;
            Ok(if matches!(t, OfferAccepted) {
                offer
            } else {
                agreement
            })
        }
        IdentityVerified => identity(&loan, CLEAR_LAST_NAME, kyc::Status::Verified, now, ids),
        IdentityReviewRequired => identity(
            &loan,
            OUTSIDER_LAST_NAME,
            kyc::Status::ReviewRequired,
            now,
            ids,
        ),
        AccountActivated | LoanFunded => account_object(&loan.account, &loan.drawdown, now),
        AccountUpdated => {
            let paid = payment(PaymentPaid, &loan.account, now, ids)?;
            collected(&loan, paid.amount, Some(&paid), None, now, ids)
        }
        AccountClosed => {
            let payoff = ledger::balance(&loan.account, &loan.drawdown, now)
                .ok_or("a balance out of range")?
                .payoff;
            collected(&loan, payoff, None, Some(Moved::Settled), now, ids)
        }
        PaymentCreated | PaymentProcessing | PaymentPaid | PaymentSettled | PaymentFailed
        | PaymentRefunded | PaymentRefundPaid | PaymentRefundFailed => json(&PaymentView::new(
            &payment(t, &loan.account, now, ids)?,
            &state.links,
        )),
        MandateRevoked => {
            let (_, mandate) = collecting(&loan.account, now, ids)?;
            let revoked = mandate
                .revoked(now)
                .ok_or("a new mandate that cannot be revoked")?;
            json(&MandateView::new(&revoked, &state.links))
        }
        ScheduleCompleted => {
            let (schedule, _) = collecting(&loan.account, now, ids)?;
            json(&ScheduleView::new(&schedule, None))
        }
        InvoiceDraft => json(&StatementView::new(&month(
            state,
            &loan.account,
            Terms::default(),
            now,
            ids,
        )?)),
        InvoiceFinalized => json(&StatementView::new(&finalized(month(
            state,
            &loan.account,
            Terms::default(),
            now,
            ids,
        )?))),
        PayoutPaid | PayoutFailed => {
            // Payouts are made under the revenue share only, to the
            // sub-account that introduced a loan.
            let share = Terms::RevenueShare {
                strategic_share_bps: statement::STRATEGIC_MIN_BPS,
            };
            let closed = finalized(month(state, &loan.account, share, now, ids)?);
            let payout = closed
                .payout_records(now)
                .into_iter()
                .next()
                .ok_or("a revenue share without its payout")?;
            // Sent by the sweep on the pay date; only the rail's word ends it.
            let on = payout.due_at.unwrap_or(now);
            let sent = payout.claim(on).ok_or("a finalized payout not due")?;
            let ended = if matches!(t, PayoutPaid) {
                sent.settle(RAIL_TRANSACTION, on)
            } else {
                sent.reject("account_closed", on)
            }
            .ok_or("a payout that cannot end")?;
            // Payout ids are derived from the month: a fresh one names no
            // payout of the caller's.
            json(&PayoutView::new(&PayoutRecord {
                id: ids.next(),
                ..ended
            }))
        }
        ModelDriftDetected => drift(owner, &loan.decision, now, ids),
        WebhookEndpointDisabled => endpoint(owner, EndpointStatus::Disabled, now, ids),
        WebhookEndpointEnabled => endpoint(owner, EndpointStatus::Enabled, now, ids),
    }
}

/// The week's monitoring as if this loan's company had been every
/// decision the model scored: a population far from the one it was
/// trained on, so it drifted and alerted.
fn drift(
    owner: &Tenant,
    decision: &Decision,
    now: OffsetDateTime,
    ids: &mut Ids,
) -> Result<Value, String> {
    use lendhub_domain::credit_model::drift::{Monitor, week_of};
    let scored = decision
        .verdict
        .scored
        .as_ref()
        .ok_or("the loan's decision was not scored")?;
    let mut monitor = Monitor::new(DRIFT_DECISIONS);
    for _ in 0..DRIFT_DECISIONS {
        monitor.count(owner, decision.verdict.outcome, Some(scored));
    }
    let week = week_of(now.date()) - time::Duration::weeks(1);
    let report = monitor.report(week, now);
    let env = report
        .environments
        .first()
        .ok_or("no environment was monitored")?;
    let model = env
        .models
        .first()
        .filter(|m| m.alert)
        .ok_or("the population did not drift")?;
    let rate = env.partners.first().ok_or("no partner was monitored")?;
    json(&ModelDriftView::new(
        &ids.next(),
        week,
        model,
        rate,
        false,
        now,
    ))
}

/// The decisions the synthetic week holds: the fewest a real week needs
/// for its drift to alert, by default.
const DRIFT_DECISIONS: u64 = 100;

fn json(view: &impl Serialize) -> Result<Value, String> {
    serde_json::to_value(view).map_err(|e| e.to_string())
}

/// One world's fresh ids: each is the next draw after `random`, as
/// `synthetic::sample` draws its own, so no two objects share one.
struct Ids {
    ms: u64,
    random: u128,
    drawn: u128,
}

impl Ids {
    fn new(now: OffsetDateTime, random: u128) -> Self {
        Self {
            ms: lendhub_domain::clock::unix_ms(now).max(0) as u64,
            random,
            drawn: 0,
        }
    }

    fn next<I: HubId>(&mut self) -> I {
        self.drawn += 1;
        I::generate(self.ms, self.random.wrapping_add(self.drawn))
    }
}

/// The loan at each stage the real flow moves it through: created, then
/// submitted and decided (`submit.rs`), accepted and signed (`accept.rs`),
/// funded with its account and drawdown (`funding.rs`).
struct Loan {
    created: Application,
    submitted: Application,
    decision: Decision,
    /// Accepted and signed: the decision locked.
    accepted: Decision,
    /// Signed, its payout not yet sent.
    signed: Application,
    funded: Application,
    account: Account,
    /// The drawdown held pending and posted (`disburse.rs`, `fund.rs`).
    drawdown: Vec<Transfer>,
}

impl Loan {
    fn funded(owner: &Tenant, now: OffsetDateTime, ids: &mut Ids) -> Result<Self, String> {
        let company = company()?;
        let created = applied(owner, &company, now, ids)?;
        let banking = TEST_BANKS
            .iter()
            .find(|(bank, _)| *bank == PAYOUT_BANK)
            .map(|(_, summary)| *summary);
        let facts = Facts::new(
            &company,
            created.amount.as_pence(),
            created.term_months,
            CreditFile::synthetic(COMPANY),
            banking,
            None,
            Signals::default(),
        );
        let (submitted, mut approved, decision) = created
            .submit(
                ids.next(),
                facts,
                lendhub_domain::credit_model::champion().ok_or("no credit model is bundled")?,
                now,
            )
            .map_err(|e| e.to_string())?;
        approved.payout_bank = Some(PAYOUT_BANK.to_owned());
        let (signed, accepted) = approved
            .accept(
                &decision,
                format!("{DIRECTOR_FIRST_NAME} {CLEAR_LAST_NAME}"),
                ids.next(),
                now,
            )
            .map_err(|e| e.to_string())?;
        let account_id: AccountId = ids.next();
        let funded = signed
            .clone()
            .claim_disbursement(now)
            .and_then(|claimed| claimed.fund(account_id.clone(), &disbursement_id(&claimed), now))
            .map_err(|e| e.to_string())?;
        let account = Account::open(
            account_id,
            &funded,
            &accepted,
            PAYOUT_BANK,
            disbursement_id(&funded),
            now,
        )
        .ok_or("the sample company's offer was not approved")?;
        let dsb = disbursement_id(&funded);
        let held = movements::drawdown(&dsb, &account.id, account.principal(), now)
            .map_err(|e| e.to_string())?;
        let posted = held
            .post(format!("{dsb}.settled"), now)
            .ok_or("a drawdown not pending")?;
        let drawdown = vec![held, posted];
        Ok(Self {
            created,
            submitted,
            decision,
            accepted,
            signed,
            funded,
            account,
            drawdown,
        })
    }
}

fn company() -> Result<RegisteredEntity, String> {
    register::synthetic(COMPANY).ok_or_else(|| format!("{COMPANY} is not on the register"))
}

/// A new application for the sample company, as `create.rs` makes one.
fn applied(
    owner: &Tenant,
    company: &RegisteredEntity,
    now: OffsetDateTime,
    ids: &mut Ids,
) -> Result<Application, String> {
    let checked = application::check(Request {
        company_number: Some(COMPANY.to_owned()),
        amount_pence: Some(AMOUNT_PENCE),
        term_months: Some(TERM_MONTHS),
        purpose: Some("working_capital".to_owned()),
        redirect_uri: Some("https://partner.example/done".to_owned()),
        reference: Some(REFERENCE.to_owned()),
        ..Request::default()
    })
    .map_err(|problems| format!("{problems:?}"))?;
    let attributed_to = match owner.kind() {
        TenantKind::Partner { client_id, .. } => client_id.to_owned(),
        TenantKind::SandboxClient(id) => id.to_owned(),
    };
    Ok(Application::new(
        ids.next(),
        owner.clone(),
        &attributed_to,
        checked,
        company,
        now,
    ))
}

/// An application its applicant never finished: created its whole open
/// period ago, expired now (as the sweep expires it).
fn expired(owner: &Tenant, now: OffsetDateTime, ids: &mut Ids) -> Result<Application, String> {
    applied(owner, &company()?, now - application::OPEN_FOR, ids)?
        .expire(now)
        .ok_or_else(|| "an application past its expiry that does not expire".to_owned())
}

/// The built-in rail's id of the disbursement (`fps_` and the end of the
/// application's id: the Faster Payments reference `funding.rs` sends).
fn disbursement_id(a: &Application) -> String {
    let id = a.id.as_str();
    format!("fps_{}", &id[id.len().saturating_sub(18)..])
}

/// A director's identity check linked to the application, as
/// `identity_checks/create.rs` makes one against the built-in register.
fn identity(
    loan: &Loan,
    last_name: &str,
    expected: kyc::Status,
    now: OffsetDateTime,
    ids: &mut Ids,
) -> Result<Value, String> {
    let application = &loan.created;
    let request = kyc::Request {
        first_name: Some(DIRECTOR_FIRST_NAME.to_owned()),
        last_name: Some(last_name.to_owned()),
        date_of_birth: Some("1985-04-12".to_owned()),
        postcode: Some("SW1A 1AA".to_owned()),
        company_number: None,
        application_id: Some(application.id.to_string()),
    };
    let mut checked = kyc::check(&request, now.date()).map_err(|p| format!("{p:?}"))?;
    // The company defaults to the application's.
    checked.company_number = Some(application.company_number.clone());
    let findings = kyc::synthetic(&checked.person, checked.company_number.is_some());
    let verification = Verification::new(
        ids.next(),
        application.owner.clone(),
        checked,
        application.reference.clone(),
        findings,
        now,
    );
    if verification.status != expected {
        return Err(format!("{last_name} was {:?}", verification.status));
    }
    json(&VerificationView::new(&verification))
}

fn account_object(
    account: &Account,
    transfers: &[Transfer],
    now: OffsetDateTime,
) -> Result<Value, String> {
    json(&AccountView::new(account, transfers, now).map_err(|e| format!("{e:?}"))?)
}

/// The account after a collection of `amount` (by `paid`, if a payment),
/// reviewed against its ledger as `payments/moves.rs` settles one; `moved`
/// is what the review must report, when it matters.
fn collected(
    loan: &Loan,
    amount: Money,
    paid: Option<&Payment>,
    moved: Option<Moved>,
    now: OffsetDateTime,
    ids: &mut Ids,
) -> Result<Value, String> {
    let owed = LoanLedger::of(&loan.account.id, &loan.drawdown)
        .map_err(|e| e.to_string())?
        .available()
        .ok_or("a balance out of range")?;
    let payment: PaymentId = paid.map_or_else(|| ids.next(), |p| p.id.clone());
    let held = movements::collection(
        &format!("{payment}.1"),
        &loan.account.id,
        amount,
        &owed,
        now,
    )
    .map_err(|e| e.to_string())?
    .known_at_bank_as(payment.as_str())
    .for_payment(payment.as_str());
    let posted = held
        .post(format!("{payment}.1.settled"), now)
        .ok_or("a collection not pending")?;
    let mut entries = loan.drawdown.clone();
    entries.extend([held, posted]);
    let (reviewed, did) = loan
        .account
        .reviewed(&entries, now)
        .ok_or("a balance out of range")?;
    if moved.is_some() && did != moved {
        return Err(format!("the review moved {did:?}, not {moved:?}"));
    }
    account_object(&reviewed, &entries, now)
}

/// The loan's £500 payment link (`create_link.rs`), moved by the domain's
/// own transitions as far as `t` reports: authorised by the payer's bank,
/// settled, refunded; or refused by it.
fn payment(
    t: EventType,
    account: &Account,
    now: OffsetDateTime,
    ids: &mut Ids,
) -> Result<Payment, String> {
    let moved = |r: Result<Payment, NotNow>| r.map_err(|e| e.to_string());
    let link = Payment::link(
        ids.next(),
        account.owner.clone(),
        account.id.clone(),
        Money::pence(PAYMENT_PENCE),
        Some(REFERENCE.to_owned()),
        None,
        None,
        None,
        now,
    );
    match t {
        EventType::PaymentCreated => return Ok(link),
        EventType::PaymentFailed => {
            return moved(link.failed(FailureReason::InsufficientFunds, Some(PAYER_BANK)));
        }
        _ => {}
    }
    let processing = moved(link.authorised(PAYER_BANK, now))?;
    if matches!(t, EventType::PaymentProcessing) {
        return Ok(processing);
    }
    let paid = moved(processing.settled(now))?.paid_from(Some(PAYER_ACCOUNT.to_owned()));
    if !matches!(
        t,
        EventType::PaymentRefunded | EventType::PaymentRefundPaid | EventType::PaymentRefundFailed
    ) {
        return Ok(paid);
    }
    let payout = RefundPayout::new(ids.next(), paid.amount, PAYER_ACCOUNT, now);
    let refunded = moved(paid.refunded_through(None, payout, now))?;
    // Sent by the sweep before the rail's word can end it.
    let sending = || refunded.refund_claimed(now);
    let ended = match t {
        EventType::PaymentRefundPaid => {
            sending().and_then(|s| s.refund_paid(RAIL_TRANSACTION, now))
        }
        EventType::PaymentRefundFailed => {
            sending().and_then(|s| s.refund_failed("account_closed", now))
        }
        _ => Some(refunded.clone()),
    };
    ended.ok_or_else(|| "a refund that cannot end".to_owned())
}

/// A monthly schedule of one £500 instalment on the account, whose payment
/// the payer authorised (establishing the mandate) and which settled,
/// completing it — as `schedules/collect.rs` and `follow.rs` move them.
/// The account a specimen payment was paid from (sort code, account
/// number), where its refund goes.
const PAYER_ACCOUNT: &str = "04000412345678";
/// The rail's id for a specimen refund's payment.
const RAIL_TRANSACTION: &str = "2f1d3c4b-5a69-4788-9a0b-1c2d3e4f5a6b";

fn collecting(
    account: &Account,
    now: OffsetDateTime,
    ids: &mut Ids,
) -> Result<(Schedule, Mandate), String> {
    let owner = &account.owner;
    let schedule = Schedule {
        reference: account.reference.clone(),
        ..Schedule::new(
            ids.next(),
            owner.clone(),
            account.id.clone(),
            Cadence::Monthly,
            Money::pence(PAYMENT_PENCE),
            now.date(),
            Some(1),
            None,
            now,
        )
    };
    let instalment: PaymentId = ids.next();
    let mandate = Mandate::establish(
        ids.next(),
        owner.clone(),
        account.id.clone(),
        PAYER_BANK,
        instalment.clone(),
        now,
    );
    let completed = schedule
        .initiated(&instalment)
        .with_mandate(&mandate.id)
        .completed(now)
        .ok_or("a new schedule that cannot complete")?;
    Ok((completed, mandate))
}

/// The month of the loan closed under `terms`, as `statements/close.rs`
/// computes it (a draft); under the revenue share the loan came through a
/// sub-account, so the month has a payout.
fn month(
    state: &PartnerState,
    account: &Account,
    terms: Terms,
    now: OffsetDateTime,
    ids: &mut Ids,
) -> Result<Statement, String> {
    let mut loan = close_month::loan(account);
    if matches!(terms, Terms::RevenueShare { .. }) {
        loan.sub_account_id = Some(ids.next());
    }
    let share = |_: &SubAccountId| MASTER_SHARE_BPS;
    let drafted = statement::close(
        &account.owner,
        Period::of(now),
        &terms,
        &[loan],
        &share,
        &state.settings.working_days,
    )
    .map_err(|e| e.to_string())?;
    // Statement ids are derived from the month: a fresh one names no
    // statement of the caller's.
    Ok(Statement {
        id: ids.next(),
        ..drafted
    })
}

/// Finalized on its invoice date, as the close does.
fn finalized(s: Statement) -> Statement {
    Statement {
        status: statement::Status::Finalized,
        ..s
    }
}

/// An endpoint as `webhook_endpoints` registers one, in `status`.
fn endpoint(
    owner: &Tenant,
    status: EndpointStatus,
    now: OffsetDateTime,
    ids: &mut Ids,
) -> Result<Value, String> {
    let livemode = matches!(owner.kind(), TenantKind::Partner { livemode: true, .. });
    let id: WebhookEndpointId = ids.next();
    let endpoint = WebhookEndpoint {
        id: id.into(),
        owner: owner.clone(),
        url: "https://partner.example/hooks".to_owned(),
        enabled_events: vec![ALL_EVENTS.to_owned()],
        description: None,
        status,
        created_at: now,
        api_version: None,
        metadata: Default::default(),
    };
    json(&WebhookEndpointView::new(&endpoint, livemode, None))
}
