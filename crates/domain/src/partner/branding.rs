//! A partner's brand on the pages its applicants and payers see (issue #51
//! item 2): the name they know the partner by, its logo and an accent
//! colour. The rules here decide what is acceptable: a logo is a PNG or
//! JPEG of bounded size whose bytes say what it is; an accent is a colour
//! white text stays readable on, so a button in it passes WCAG AA.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The largest logo accepted, in bytes.
pub const MAX_LOGO_BYTES: usize = 256 * 1024;
/// The largest logo accepted, in pixels each way.
pub const MAX_LOGO_PIXELS: u32 = 2048;
/// The longest display name, in characters.
pub const MAX_DISPLAY_NAME: usize = 60;

/// What a partner's pages show of it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Branding {
    /// The name its customers know it by; `None`: the partner's own name.
    pub display_name: Option<String>,
    /// `#rrggbb`, lower case.
    pub accent: Option<String>,
    pub logo: Option<Logo>,
}

/// A logo, by the SHA-256 of its bytes (its address: a changed logo is a
/// new address, so a cached one never shows stale).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Logo {
    pub sha256: String,
    pub content_type: String,
    pub width: u32,
    pub height: u32,
}

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum BrandingError {
    #[error("the display name must be 1 to {MAX_DISPLAY_NAME} characters, with no line breaks")]
    DisplayName,
    #[error(
        "the accent colour must be #rrggbb, dark enough for white text on it (a contrast of at least 4.5 to 1)"
    )]
    Accent,
    #[error("the logo must be a PNG or JPEG file")]
    LogoType,
    #[error("the logo must be at most {} KB", MAX_LOGO_BYTES / 1024)]
    LogoTooLarge,
    #[error("the logo must be at most {MAX_LOGO_PIXELS} pixels wide and high")]
    LogoDimensions,
}

/// A display name as typed: trimmed, `None` when empty.
pub fn check_display_name(raw: &str) -> Result<Option<String>, BrandingError> {
    let name = raw.trim();
    if name.is_empty() {
        return Ok(None);
    }
    if name.chars().count() > MAX_DISPLAY_NAME || name.chars().any(char::is_control) {
        return Err(BrandingError::DisplayName);
    }
    Ok(Some(name.to_owned()))
}

/// An accent colour as typed (`#0b5cad`), `None` when empty; refused unless
/// white text on it has a contrast ratio of at least 4.5:1.
pub fn check_accent(raw: &str) -> Result<Option<String>, BrandingError> {
    let raw = raw.trim();
    if raw.is_empty() {
        return Ok(None);
    }
    let hex = raw.strip_prefix('#').ok_or(BrandingError::Accent)?;
    if hex.len() != 6 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(BrandingError::Accent);
    }
    let channel =
        |k: usize| u8::from_str_radix(&hex[k..k + 2], 16).map_err(|_| BrandingError::Accent);
    let rgb = [channel(0)?, channel(2)?, channel(4)?];
    if contrast_with_white(rgb) < 4.5 {
        return Err(BrandingError::Accent);
    }
    Ok(Some(format!("#{}", hex.to_ascii_lowercase())))
}

/// WCAG 2's contrast ratio of white against `rgb`.
pub fn contrast_with_white(rgb: [u8; 3]) -> f64 {
    let linear = |c: u8| {
        let c = f64::from(c) / 255.0;
        if c <= 0.040_45 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    let l = 0.2126 * linear(rgb[0]) + 0.7152 * linear(rgb[1]) + 0.0722 * linear(rgb[2]);
    1.05 / (l + 0.05)
}

/// A logo's bytes checked: what they are by their own signature (never by
/// the name or type the browser claimed), their size and dimensions.
pub fn check_logo(bytes: &[u8]) -> Result<Logo, BrandingError> {
    use imagesize::ImageType;
    if bytes.len() > MAX_LOGO_BYTES {
        return Err(BrandingError::LogoTooLarge);
    }
    let content_type = match imagesize::image_type(bytes) {
        Ok(ImageType::Png) => "image/png",
        Ok(ImageType::Jpeg) => "image/jpeg",
        _ => return Err(BrandingError::LogoType),
    };
    let size = imagesize::blob_size(bytes).map_err(|_| BrandingError::LogoType)?;
    let fits = |n: usize| n > 0 && n <= MAX_LOGO_PIXELS as usize;
    if !fits(size.width) || !fits(size.height) {
        return Err(BrandingError::LogoDimensions);
    }
    Ok(Logo {
        sha256: hex::encode(Sha256::digest(bytes)),
        content_type: content_type.to_owned(),
        width: size.width as u32,
        height: size.height as u32,
    })
}

#[cfg(test)]
mod tests;
