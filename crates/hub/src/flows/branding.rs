//! A partner's brand (issue #51 item 2): read for the pages and e-mails
//! its customers see, and changed from the dashboard.

use lendhub_domain::partner::branding::{
    self, Branding, BrandingError, check_accent, check_display_name, check_logo,
};
use lendhub_domain::tenant::{Tenant, TenantKind};
use lendhub_store::BrandWrite;

use crate::flows::Context;
use crate::flows::error::FlowError;

/// Where a logo is served, by the SHA-256 of its bytes.
pub const LOGO_PREFIX: &str = "/brand/logos/";

/// The brand of the partner `owner` belongs to, if it set one.
pub async fn of_owner(cx: &Context, owner: &Tenant) -> Result<Option<Branding>, FlowError> {
    match owner.kind() {
        TenantKind::Partner { client_id, .. } => of_partner(cx, client_id).await,
        _ => Ok(None),
    }
}

/// The partner's brand, if it set one.
pub async fn of_partner(
    cx: &Context,
    partner_client_id: &str,
) -> Result<Option<Branding>, FlowError> {
    Ok(cx.brands.branding(partner_client_id).await?)
}

/// The name the partner's customers know it by, if it gave one.
pub async fn display_name(cx: &Context, owner: &Tenant) -> Result<Option<String>, FlowError> {
    Ok(of_owner(cx, owner).await?.and_then(|b| b.display_name))
}

/// A logo's content type and bytes.
pub async fn logo(cx: &Context, sha256: &str) -> Result<Option<(String, Vec<u8>)>, FlowError> {
    if sha256.len() != 64 || !sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Ok(None);
    }
    Ok(cx.brands.logo(sha256).await?)
}

/// What the dashboard's form gives.
pub struct BrandForm<'a> {
    pub display_name: &'a str,
    pub accent: &'a str,
    /// A newly chosen logo's bytes, if one was.
    pub logo: Option<&'a [u8]>,
    pub remove_logo: bool,
}

/// The partner's brand as the form changes `current`, with the write that
/// keeps it; every field refused says why.
pub fn change(
    partner_client_id: &str,
    current: Option<Branding>,
    form: &BrandForm<'_>,
    at_ms: i64,
) -> Result<(Branding, BrandWrite), Vec<BrandingError>> {
    let mut errors = Vec::new();
    let display_name = check_display_name(form.display_name).map_err(|e| errors.push(e));
    let accent = check_accent(form.accent).map_err(|e| errors.push(e));
    let uploaded = form
        .logo
        .filter(|b| !b.is_empty())
        .map(|bytes| check_logo(bytes).map(|l| (l, bytes.to_vec())))
        .transpose()
        .map_err(|e| errors.push(e));
    let (Ok(display_name), Ok(accent), Ok(uploaded)) = (display_name, accent, uploaded) else {
        return Err(errors);
    };
    let kept = current.and_then(|c| c.logo).filter(|_| !form.remove_logo);
    let (logo, bytes) = match uploaded {
        Some((described, bytes)) => (Some(described), Some(bytes)),
        None => (kept, None),
    };
    let branding = branding::Branding {
        display_name,
        accent,
        logo,
    };
    let write = BrandWrite::Set {
        partner_client_id: partner_client_id.to_owned(),
        branding: branding.clone(),
        logo: bytes,
        at_ms,
    };
    Ok((branding, write))
}
