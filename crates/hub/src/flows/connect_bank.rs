//! Connecting the applicant's bank for a white-label journey: the partner
//! asks for a connection and sends the applicant to the authorisation page
//! it names; the applicant comes back through lendhub's open-banking
//! callback, where the account they shared is read; the submission then
//! names the connection. The same open-banking step the hosted journey
//! takes on its bank page, for partners who build their own pages.

use lendhub_domain::ids::{BankConnectionId, HubId};
use lendhub_domain::lending::application::{Application, Status as ApplicationStatus};
use lendhub_domain::lending::bank_connection::{BankConnection, Failure, Request, Start, Status};
use lendhub_domain::lending::journey::SharedAccount;
use lendhub_domain::lending::underwriting::Banking;
use lendhub_domain::problem::Problem;
use lendhub_domain::tenant::Tenant;
use lendhub_store::{CommitError, LendingWrite, WriteSet};
use time::OffsetDateTime;

use crate::counterparties::ReadRefused;
use crate::flows::Context;
use crate::flows::error::FlowError;
use crate::flows::lending::find;

/// The banks an applicant of `owner`'s environment may connect, as
/// (id, name).
pub fn banks(cx: &Context, owner: &Tenant) -> Vec<(String, String)> {
    cx.accounts.for_owner(owner).banks()
}

/// Asks the bank for an account-access consent for `owner`'s application
/// `application_id`: the connection, waiting for the applicant to
/// authorise at its `authorisation_url`, as a write to commit.
pub(crate) async fn start(
    cx: &Context,
    owner: &Tenant,
    application_id: &str,
    request: Request,
    now: OffsetDateTime,
) -> Result<(BankConnection, WriteSet), FlowError> {
    let application = find(cx, owner, application_id).await?;
    if application.status != ApplicationStatus::Created {
        return Err(FlowError::Conflict(
            "the application is no longer open: it was submitted, withdrawn or expired",
        ));
    }
    let accounts = cx.accounts.for_owner(owner);
    if !accounts.banks().iter().any(|(id, _)| *id == request.bank) {
        return Err(FlowError::Validation(vec![Problem::new(
            "bank",
            "unknown_bank",
        )]));
    }
    let id: BankConnectionId =
        lendhub_system::new_hub_id(lendhub_domain::clock::unix_ms(now) as u64);
    // The callback finds the connection by the state's prefix; the rest is
    // the secret only this authorisation knows.
    let secret = lendhub_system::random_token(24);
    let nonce = lendhub_system::random_token(16);
    let access = accounts
        .request_access(&request.bank, &format!("{id}.{secret}"), &nonce)
        .await
        .map_err(|e| FlowError::Unavailable(e.to_string()))?;
    let connection = BankConnection::start(
        Start {
            id,
            owner: owner.clone(),
            application_id: application.id,
            request,
            authorisation_url: access.authorise_url,
            secret: &secret,
            nonce,
        },
        now,
    );
    let mut writes = WriteSet::default();
    writes.push(LendingWrite::InsertBankConnection(connection.clone()));
    Ok((connection, writes))
}

/// `owner`'s connection `raw`, as it stands.
pub(crate) async fn retrieve(
    cx: &Context,
    owner: &Tenant,
    application_id: &str,
    raw: &str,
) -> Result<BankConnection, FlowError> {
    let missing = FlowError::NotFound("bank connection");
    let id = BankConnectionId::parse(raw).ok_or(missing)?;
    cx.lending
        .bank_connection(&id)
        .await?
        .filter(|c| c.owner == *owner && c.application_id.as_str() == application_id)
        .ok_or(FlowError::NotFound("bank connection"))
}

/// What the bank sent the applicant back to lendhub's callback with.
pub struct BankAnswer<'a> {
    /// `bcn_….<secret>`.
    pub state: &'a str,
    pub code: Option<&'a str>,
    pub error: Option<&'a str>,
}

/// The callback: the account the applicant shared is read and the
/// connection ends `connected`, or `failed` saying why. `None` when the
/// state names no connection or carries the wrong secret. A second
/// arrival (a reload, a replay) reads nothing and changes nothing: it
/// finds the connection as the first left it.
pub(crate) async fn returned(
    cx: &Context,
    answer: BankAnswer<'_>,
) -> Result<Option<BankConnection>, FlowError> {
    let Some((id, secret)) = answer.state.split_once('.') else {
        return Ok(None);
    };
    let Some(id) = BankConnectionId::parse(id) else {
        return Ok(None);
    };
    let Some(connection) = cx.lending.bank_connection(&id).await? else {
        return Ok(None);
    };
    if !connection.holds(secret) {
        return Ok(None);
    }
    let now = cx.now_for(&connection.owner).await?;
    if connection.status(now) != Status::AwaitingAuthorisation {
        return Ok(Some(connection));
    }
    let accounts = cx.accounts.for_owner(&connection.owner);
    let next = match (answer.code, answer.error) {
        (Some(code), None) => match accounts
            .read_account(&connection.bank, code, &connection.nonce)
            .await
        {
            Ok(account) => connection.connect(
                &account.payout,
                SharedAccount {
                    bank: connection.bank.clone(),
                    name: account.name,
                    balance_pence: account.balance_pence,
                    banking: account.banking,
                },
                now,
            ),
            Err(ReadRefused::Consent) => connection.fail(Failure::ConsentNotHonoured),
            Err(ReadRefused::NoUsableAccount) => connection.fail(Failure::NoUsableAccount),
            Err(ReadRefused::Unavailable(e)) => {
                tracing::warn!(error = %e, bank = %connection.bank, "the shared account could not be read");
                connection.fail(Failure::BankUnavailable)
            }
        },
        _ => connection.fail(Failure::ConsentRefused),
    };
    let mut writes = WriteSet::default();
    writes.push(LendingWrite::UpdateBankConnection(next.clone()));
    match cx.commit(writes).await {
        Ok(()) => Ok(Some(next)),
        // Another arrival of the same answer finished it first: its
        // outcome stands.
        Err(CommitError::Conflict) => Ok(cx.lending.bank_connection(&next.id).await?),
        Err(e) => Err(e.into()),
    }
}

/// The account a submission of `application` names by its connection
/// `raw`: where the loan is paid (sort code and account number) and the
/// cash flow read at the bank. 404 unless it is the application's;
/// `bank_connection: not_connected` unless the account was read.
pub(crate) async fn connected_account(
    cx: &Context,
    application: &Application,
    raw: &str,
) -> Result<(String, Banking), FlowError> {
    let connection = retrieve(cx, &application.owner, application.id.as_str(), raw).await?;
    match connection.connected {
        Some(c) => Ok((c.payout, c.account.banking)),
        None => Err(FlowError::Validation(vec![Problem::new(
            "bank_connection",
            "not_connected",
        )])),
    }
}
