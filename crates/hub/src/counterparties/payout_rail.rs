//! The payout rail over ClearBank's Institution API (`docs/decisions.md`,
//! "The payout rail"): Faster Payments out of the lender's funding account
//! (`POST /v3/payments/fps`), each payment's end found by its end-to-end id
//! in the account's transactions (`GET /v2/Accounts/{id}/Transactions`)
//! when its webhook was lost, and the bank's webhooks read and answered.
//! Every request carries the API token (bearer) and every body lendhub
//! sends or answers with its `DigitalSignature` (RSASSA-PKCS1-v1_5 SHA-256,
//! Base64); every webhook's is checked with the bank's public key.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use lendhub_domain::ledger::reconciliation::{BankAccount, BankMovement};
use lendhub_domain::payout_rail::Outcome;
use lendhub_domain::payout_rail::clearbank::{
    self, ACCEPTED, Amount, CounterpartAccount, CreditTransfer, CreditorReference, Debtor,
    PaymentIdentification, PaymentInstruction, PaymentRequest, PaymentResponse,
    RemittanceInformation, Structured, TRANSACTION_REJECTED, TRANSACTION_SETTLED, Transaction,
    TransactionPayload, Transactions, Webhook,
};
use lendhub_domain::secret::Secret;
use lendhub_system::{Rs256Verifier, RsaSigner};
use time::OffsetDateTime;

use super::hop;
use super::keyed_api::KeyedApi;
use super::{Payout, PayoutRail, RailStatus, RailUnavailable, RailWebhook, Sent, WebhookRefused};

/// The lender's account payouts are paid from, as the bank names it.
#[derive(Clone, Debug)]
pub struct FundingAccount {
    /// Its id in the bank's API (a GUID).
    pub id: String,
    /// Sort code then account number.
    pub sort_code_account_number: String,
    /// The payer's address the scheme carries (ClearBank's `debtor.address`).
    pub address: String,
}

pub struct ClearBank {
    api: KeyedApi,
    funding: FundingAccount,
    /// The collection account's id in the bank's API, if lendhub reads
    /// its statement (for reconciliation).
    collections: Option<String>,
    /// lendhub's key: signs every request body and every webhook answer.
    signer: Arc<RsaSigner>,
    /// The bank's public key: every webhook must verify with it.
    bank_key: Arc<Rs256Verifier>,
}

impl ClearBank {
    pub fn new(
        base: &str,
        token: Secret<String>,
        (funding, collections): (FundingAccount, Option<String>),
        signer: Arc<RsaSigner>,
        bank_key: Arc<Rs256Verifier>,
        timeout: Duration,
    ) -> Result<Self, reqwest::Error> {
        Ok(Self {
            api: KeyedApi::new("the payout rail", base, token, timeout)?,
            funding,
            collections,
            signer,
            bank_key,
        })
    }

    fn account_id(&self, account: BankAccount) -> Option<&str> {
        match account {
            BankAccount::Funding => Some(&self.funding.id),
            BankAccount::Collections => self.collections.as_deref(),
        }
    }

    /// One page of `account_id`'s transactions under `query`.
    async fn transactions(
        &self,
        account_id: &str,
        query: &[(&str, String)],
    ) -> Result<Vec<Transaction>, RailUnavailable> {
        let path = format!("/v2/Accounts/{account_id}/Transactions");
        let sent = hop::send(
            hop::PAYOUT_RAIL,
            "GET /v2/Accounts/{accountId}/Transactions",
            self.api.get(&path).query(query),
        )
        .await;
        Ok(self
            .api
            .read::<Transactions>("an account's transactions", sent)
            .await
            .map_err(RailUnavailable)?
            .ok_or_else(|| RailUnavailable(format!("the bank knows no account {account_id}")))?
            .transactions)
    }

    fn signature(&self, body: &[u8]) -> Result<String, RailUnavailable> {
        self.signer
            .sign_rs256(body)
            .map(|s| STANDARD.encode(s))
            .map_err(RailUnavailable)
    }
}

/// A statement is read this many transactions at a time, and no more than
/// this many pages of a day (a day past it is an error, never a silently
/// short statement).
const PAGE_SIZE: usize = 500;
const MAX_PAGES: usize = 1_000;

fn rfc3339(at: OffsetDateTime) -> Result<String, RailUnavailable> {
    at.format(&time::format_description::well_known::Rfc3339)
        .map_err(|e| RailUnavailable(e.to_string()))
}

/// A statement's line: into the account when positive.
fn movement(t: Transaction) -> Result<BankMovement, RailUnavailable> {
    let amount = clearbank::pence(t.amount.instructed_amount).ok_or_else(|| {
        RailUnavailable(format!(
            "the bank's amount {} for {} is not whole pence",
            t.amount.instructed_amount, t.end_to_end_identifier
        ))
    })?;
    let amount = match t.debit_credit_code.as_str() {
        "CRDT" => amount,
        _ => amount
            .checked_neg()
            .ok_or_else(|| RailUnavailable("an amount out of range".to_owned()))?,
    };
    Ok(BankMovement {
        transaction_id: t.transaction_id,
        end_to_end_id: t.end_to_end_identifier,
        amount,
        settled: t.status == "ACSC",
        at: t.transaction_time,
    })
}

/// What the rail accepts in a name or reference: ClearBank's pattern, and
/// no more than `max` characters.
fn scheme_text(text: &str, max: usize) -> String {
    text.chars()
        .filter(|c| c.is_ascii_alphanumeric() || " /-?:().,'+#=!\"%&*<>;{@".contains(*c))
        .take(max)
        .collect()
}

#[async_trait]
impl PayoutRail for ClearBank {
    async fn send(&self, payout: &Payout<'_>) -> Result<Sent, RailUnavailable> {
        let request = PaymentRequest {
            payment_instructions: vec![PaymentInstruction {
                payment_instruction_identification: payout.end_to_end_id.to_owned(),
                debtor: Debtor {
                    address: scheme_text(&self.funding.address, 140),
                    legal_entity_identifier: None,
                },
                debtor_account: CounterpartAccount::uk(&self.funding.sort_code_account_number),
                credit_transfers: vec![CreditTransfer {
                    payment_identification: PaymentIdentification {
                        instruction_identification: payout.end_to_end_id.to_owned(),
                        end_to_end_identification: payout.end_to_end_id.to_owned(),
                    },
                    amount: Amount {
                        instructed_amount: clearbank::pounds(payout.amount),
                        currency: "GBP".to_owned(),
                    },
                    creditor: clearbank::Creditor {
                        name: scheme_text(payout.payee_name, 140),
                    },
                    creditor_account: CounterpartAccount::uk(payout.payee),
                    remittance_information: RemittanceInformation {
                        structured: Structured {
                            creditor_reference_information: CreditorReference {
                                reference: scheme_text(payout.reference, 18),
                            },
                        },
                    },
                }],
            }],
        };
        let body = serde_json::to_vec(&request).map_err(|e| RailUnavailable(e.to_string()))?;
        let signature = self.signature(&body)?;
        let sent = hop::send(
            hop::PAYOUT_RAIL,
            "POST /v3/payments/fps",
            self.api
                .post("/v3/payments/fps")
                .header("content-type", "application/json")
                .header("DigitalSignature", signature)
                // Unique per request; the payment's own duplicate check is
                // its end-to-end id, the same on every try.
                .header("X-Request-Id", lendhub_system::random_uuid())
                .body(body),
        )
        .await
        .map_err(|e| RailUnavailable(format!("the payout rail did not answer: {e}")))?;
        let status = sent.status();
        if status.is_server_error() || status == reqwest::StatusCode::TOO_MANY_REQUESTS {
            return Err(RailUnavailable(format!(
                "the payout rail answered {status}"
            )));
        }
        if status == reqwest::StatusCode::UNAUTHORIZED || status == reqwest::StatusCode::FORBIDDEN {
            return Err(RailUnavailable(format!(
                "the payout rail refused lendhub's token or signature ({status}): check its configuration"
            )));
        }
        // 202 with each transfer's answer, or 400 when every one was refused
        // (then with the same answers, or a problem document).
        let answer: Option<PaymentResponse> = sent.json().await.ok();
        let response = answer.and_then(|a| {
            a.transactions
                .into_iter()
                .find(|t| t.end_to_end_identification == payout.end_to_end_id)
                .map(|t| t.response)
        });
        match response {
            Some(r) if r == ACCEPTED => Ok(Sent::Accepted),
            Some(code) => Ok(Sent::Refused { code }),
            None => Err(RailUnavailable(format!(
                "the payout rail answered {status} without the payment's answer"
            ))),
        }
    }

    async fn status(&self, end_to_end_id: &str) -> Result<RailStatus, RailUnavailable> {
        let listed = self
            .transactions(
                &self.funding.id,
                &[("endToEndIdentifier", end_to_end_id.to_owned())],
            )
            .await?;
        let Some(payment) = listed
            .into_iter()
            .find(|t| t.end_to_end_identifier == end_to_end_id && t.debit_credit_code == "DBIT")
        else {
            return Ok(RailStatus::Unknown);
        };
        Ok(match payment.status.as_str() {
            "ACSC" => RailStatus::Ended(Outcome::Settled {
                transaction_id: payment.transaction_id,
                at: payment.transaction_time,
            }),
            // The account's list gives no cancellation code.
            "RJCT" => RailStatus::Ended(Outcome::Rejected {
                code: "RJCT".to_owned(),
                at: payment.transaction_time,
            }),
            _ => RailStatus::InProgress,
        })
    }

    async fn statement(
        &self,
        account: BankAccount,
        from: OffsetDateTime,
        to: OffsetDateTime,
    ) -> Result<Option<Vec<BankMovement>>, RailUnavailable> {
        let Some(id) = self.account_id(account) else {
            return Ok(None);
        };
        let (start, end) = (
            rfc3339(from)?,
            rfc3339(to - time::Duration::milliseconds(1))?,
        );
        let mut movements = Vec::new();
        for page in 1..=MAX_PAGES {
            let listed = self
                .transactions(
                    id,
                    &[
                        ("startDateTime", start.clone()),
                        ("endDateTime", end.clone()),
                        ("pageNumber", page.to_string()),
                        ("pageSize", PAGE_SIZE.to_string()),
                    ],
                )
                .await?;
            let full = listed.len() == PAGE_SIZE;
            for t in listed {
                movements.push(movement(t)?);
            }
            if !full {
                return Ok(Some(movements));
            }
        }
        Err(RailUnavailable(format!(
            "more than {} transactions in a day on the {} account",
            MAX_PAGES * PAGE_SIZE,
            account.as_str()
        )))
    }

    async fn movement(
        &self,
        account: BankAccount,
        end_to_end_id: &str,
    ) -> Result<Option<BankMovement>, RailUnavailable> {
        let Some(id) = self.account_id(account) else {
            return Ok(None);
        };
        let listed = self
            .transactions(id, &[("endToEndIdentifier", end_to_end_id.to_owned())])
            .await?;
        let mut found = None;
        for t in listed
            .into_iter()
            .filter(|t| t.end_to_end_identifier == end_to_end_id)
        {
            let m = movement(t)?;
            // A settled movement tells more than one in progress.
            if found.as_ref().is_none_or(|f: &BankMovement| !f.settled) {
                found = Some(m);
            }
        }
        Ok(found)
    }

    fn read_webhook(&self, body: &[u8], signature: &str) -> Result<RailWebhook, WebhookRefused> {
        let signature = STANDARD
            .decode(signature.trim())
            .map_err(|_| WebhookRefused::Signature)?;
        if !self.bank_key.verify(body, &signature) {
            return Err(WebhookRefused::Signature);
        }
        let webhook: Webhook =
            serde_json::from_slice(body).map_err(|e| WebhookRefused::Body(e.to_string()))?;
        let about = match webhook.kind.as_str() {
            TRANSACTION_SETTLED | TRANSACTION_REJECTED => {
                let payload: TransactionPayload = serde_json::from_value(webhook.payload)
                    .map_err(|e| WebhookRefused::Body(e.to_string()))?;
                // Only an outbound payment's end is one of lendhub's.
                (payload.debit_credit_code == "Debit" && !payload.is_return)
                    .then(|| outcome(&webhook.kind, payload))
                    .flatten()
            }
            _ => None,
        };
        Ok(RailWebhook {
            nonce: webhook.nonce,
            about,
        })
    }

    fn answer(&self, nonce: i64) -> Result<(Vec<u8>, String), RailUnavailable> {
        let body = serde_json::to_vec(&serde_json::json!({ "Nonce": nonce }))
            .map_err(|e| RailUnavailable(e.to_string()))?;
        let signature = self.signature(&body)?;
        Ok((body, signature))
    }
}

/// The end a settled or rejected payment's payload says, by its end-to-end
/// id.
fn outcome(kind: &str, payload: TransactionPayload) -> Option<(String, Outcome)> {
    let outcome = if kind == TRANSACTION_SETTLED {
        Outcome::Settled {
            transaction_id: payload.transaction_id,
            at: payload.timestamp_settled?,
        }
    } else {
        Outcome::Rejected {
            code: payload
                .cancellation_code
                .unwrap_or_else(|| "OTHR".to_owned()),
            at: payload.timestamp_modified?,
        }
    };
    Some((payload.end_to_end_transaction_id, outcome))
}
