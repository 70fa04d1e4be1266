//! Company credit reports over lendhub's credit-report API
//! (`GET /v1/companies/{company_number}/credit-report`,
//! `lendhub_domain::lending::checks_api`): the model credit bureau, or an
//! agency that speaks the same shape. An agency with its own API gets an
//! adapter of its own beside this one, behind the same [`CreditBureau`].

use std::time::Duration;

use async_trait::async_trait;
use lendhub_domain::lending::checks_api::CreditReport;
use lendhub_domain::lending::underwriting::CreditFile;
use lendhub_domain::secret::Secret;

use super::hop;
use super::keyed_api::KeyedApi;
use super::{BureauUnavailable, CreditBureau};

pub struct CreditReports(KeyedApi);

impl CreditReports {
    pub fn new(base: &str, key: Secret<String>, timeout: Duration) -> Result<Self, reqwest::Error> {
        Ok(Self(KeyedApi::new(
            "the credit bureau",
            base,
            key,
            timeout,
        )?))
    }
}

#[async_trait]
impl CreditBureau for CreditReports {
    async fn credit_file(&self, company_number: &str) -> Result<CreditFile, BureauUnavailable> {
        // Company numbers are letters and digits; anything else would
        // change the path, and is no company.
        if !company_number.chars().all(|c| c.is_ascii_alphanumeric()) {
            return Err(BureauUnavailable(format!(
                "{company_number:?} is not a company number to ask about"
            )));
        }
        let path = format!("/v1/companies/{company_number}/credit-report");
        let sent = hop::send(
            hop::CREDIT_REPORTS,
            "GET /v1/companies/{company_number}/credit-report",
            self.0.get(&path),
        )
        .await;
        match self.0.read::<CreditReport>("a credit report", sent).await {
            Ok(Some(report)) if report.company_number == company_number => Ok(report.file()),
            Ok(Some(report)) => Err(BureauUnavailable(format!(
                "the credit bureau answered for {} when asked for {company_number}",
                report.company_number
            ))),
            // No file: the decision cannot be made on the bureau's word
            // (docs/decisions.md, "A company the bureau has no file on").
            Ok(None) => Err(BureauUnavailable(format!(
                "the credit bureau has no file on {company_number}"
            ))),
            Err(why) => Err(BureauUnavailable(why)),
        }
    }
}
