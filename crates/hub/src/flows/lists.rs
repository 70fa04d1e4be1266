//! The lending lists a partner pages through (`GET /applications`,
//! `/decisions`, `/introductions`, `/payments`): the filters read, a cursor that names
//! no object of the owner's refused as not found, and one page read.

use lendhub_domain::ids::{ApplicationId, DecisionId, HubId, IntroductionId, PaymentId};
use lendhub_domain::lending::application::{Application, Decision};
use lendhub_domain::lending::introduction::Introduction;
use lendhub_domain::lending::list_filters;
use lendhub_domain::list_filter;
use lendhub_domain::paging::Page;
use lendhub_domain::servicing::collection::Payment;
use lendhub_domain::servicing::list_filters as servicing_filters;
use lendhub_domain::tenant::Tenant;
use lendhub_store::{
    ApplicationPage, ApplicationQuery, DecisionPage, DecisionQuery, IntroductionPage,
    IntroductionQuery, PaymentPage, PaymentQuery,
};
use lendhub_wire::list_query::ListRequest;

use crate::flows::Context;
use crate::flows::error::FlowError;

/// Refuses a page whose cursor cannot be an `I`: it names nothing.
fn cursors_parse<I: HubId>(request: &ListRequest, missing: FlowError) -> Result<(), FlowError> {
    match request.cursors().any(|c| I::parse(c).is_none()) {
        true => Err(missing),
        false => Ok(()),
    }
}

/// A page of `owner`'s applications: `status`, `reference`,
/// `created_after`.
pub async fn applications(
    cx: &Context,
    owner: &Tenant,
    request: &ListRequest,
) -> Result<Page<Application>, FlowError> {
    let filters =
        list_filters::applications(request.filter("status"), request.filter("created_after"))?;
    let missing = || FlowError::NotFound("application for the cursor");
    cursors_parse::<ApplicationId>(request, missing())?;
    // Ids sort by creation time: "created after t" is "id from the first
    // id of the next millisecond".
    let query = ApplicationQuery {
        page: request.page.clone(),
        status: filters.status,
        reference: request.filter("reference").map(str::to_owned),
        search: None,
        after_id: filters
            .created_after_ms
            .map(|ms| ApplicationId::floor_after(ms).to_string()),
    };
    match cx.lending.hub_applications(owner, &query).await? {
        ApplicationPage::Page(page) => Ok(page),
        ApplicationPage::UnknownCursor => Err(missing()),
    }
}

/// A page of `owner`'s decisions: `outcome`, `decided_after`.
pub async fn decisions(
    cx: &Context,
    owner: &Tenant,
    request: &ListRequest,
) -> Result<Page<Decision>, FlowError> {
    let filters =
        list_filters::decisions(request.filter("outcome"), request.filter("decided_after"))?;
    let missing = || FlowError::NotFound("decision for the cursor");
    cursors_parse::<DecisionId>(request, missing())?;
    // Ids sort by the moment of decision: "after t" is "from the first id
    // of the next millisecond".
    let query = DecisionQuery {
        page: request.page.clone(),
        outcome: filters.outcome,
        after_id: filters
            .decided_after_ms
            .map(|ms| DecisionId::floor_after(ms).to_string()),
    };
    match cx.lending.hub_decisions(owner, &query).await? {
        DecisionPage::Page(page) => Ok(page),
        DecisionPage::UnknownCursor => Err(missing()),
    }
}

/// A page of the applications `owner`'s sub-accounts introduced, each with
/// its application: `sub_account_id`.
pub async fn introductions(
    cx: &Context,
    owner: &Tenant,
    request: &ListRequest,
) -> Result<Page<(Introduction, Application)>, FlowError> {
    let sub_account_id = list_filter::by_sub_account(request.filter("sub_account_id"))?;
    let missing = || FlowError::NotFound("introduction for the cursor");
    cursors_parse::<IntroductionId>(request, missing())?;
    let query = IntroductionQuery {
        page: request.page.clone(),
        sub_account_id,
    };
    let page = match cx.commercial.introductions(owner, &query).await? {
        IntroductionPage::Page(page) => page,
        IntroductionPage::UnknownCursor => return Err(missing()),
    };
    let mut items = Vec::with_capacity(page.items.len());
    for i in page.items {
        let application = cx
            .lending
            .hub_application(owner, &i.application_id)
            .await?
            .ok_or_else(|| {
                FlowError::Internal(format!("introduction {} names no application", i.id))
            })?;
        items.push((i, application));
    }
    Ok(Page {
        items,
        has_more: page.has_more,
    })
}

/// A page of `owner`'s payments: `account_id`, `status`.
pub async fn payments(
    cx: &Context,
    owner: &Tenant,
    request: &ListRequest,
) -> Result<Page<Payment>, FlowError> {
    let filters =
        servicing_filters::payments(request.filter("status"), request.filter("account_id"))?;
    let missing = || FlowError::NotFound("payment for the cursor");
    cursors_parse::<PaymentId>(request, missing())?;
    let query = PaymentQuery {
        page: request.page.clone(),
        account_id: filters.account_id,
        status: filters.status,
    };
    match cx.servicing.hub_payments(owner, &query).await? {
        PaymentPage::Page(page) => Ok(page),
        PaymentPage::UnknownCursor => Err(missing()),
    }
}
