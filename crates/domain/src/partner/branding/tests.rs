use super::*;

/// A PNG's signature and header chunk: `width` by `height`.
fn png(width: u32, height: u32) -> Vec<u8> {
    let mut bytes = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    bytes.extend_from_slice(&width.to_be_bytes());
    bytes.extend_from_slice(&height.to_be_bytes());
    bytes.extend_from_slice(&[8, 2, 0, 0, 0, 0, 0, 0, 0]);
    bytes
}

/// A JPEG's start and a baseline frame header: `width` by `height`.
fn jpeg(width: u16, height: u16) -> Vec<u8> {
    let mut bytes = vec![0xff, 0xd8, 0xff, 0xe0, 0, 16];
    bytes.extend_from_slice(b"JFIF\0\x01\x01\0\0\x01\0\x01\0\0");
    bytes.extend_from_slice(&[0xff, 0xc0, 0, 17, 8]);
    bytes.extend_from_slice(&height.to_be_bytes());
    bytes.extend_from_slice(&width.to_be_bytes());
    bytes.extend_from_slice(&[3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
    bytes
}

#[test]
fn a_logo_is_a_png_or_jpeg_by_its_own_bytes_within_bounds() {
    let logo = check_logo(&png(240, 80)).unwrap();
    assert_eq!(
        (logo.content_type.as_str(), logo.width, logo.height),
        ("image/png", 240, 80)
    );
    assert_eq!(logo.sha256.len(), 64);
    let logo = check_logo(&jpeg(300, 100)).unwrap();
    assert_eq!(
        (logo.content_type.as_str(), logo.width, logo.height),
        ("image/jpeg", 300, 100)
    );
    // An SVG (script can hide in one), HTML, a GIF: refused, whatever it was called.
    for other in [
        &b"<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>"[..],
        b"<html><script>alert(1)</script>",
        b"GIF89a\x01\x00\x01\x00",
        b"",
    ] {
        assert_eq!(check_logo(other), Err(BrandingError::LogoType));
    }
    assert_eq!(
        check_logo(&png(4096, 10)),
        Err(BrandingError::LogoDimensions)
    );
    assert_eq!(check_logo(&png(0, 10)), Err(BrandingError::LogoDimensions));
    let mut big = png(10, 10);
    big.resize(MAX_LOGO_BYTES + 1, 0);
    assert_eq!(check_logo(&big), Err(BrandingError::LogoTooLarge));
}

#[test]
fn an_accent_must_keep_white_text_readable() {
    assert_eq!(
        check_accent(" #0B5CAD ").unwrap().as_deref(),
        Some("#0b5cad")
    );
    assert_eq!(check_accent("").unwrap(), None);
    // GOV.UK's green passes; yellow and a pale grey do not.
    assert!(check_accent("#00703c").unwrap().is_some());
    for refused in ["#ffdd00", "#cccccc", "0b5cad", "#0b5ca", "#0b5cazz", "red"] {
        assert_eq!(
            check_accent(refused),
            Err(BrandingError::Accent),
            "{refused}"
        );
    }
    assert!((contrast_with_white([0, 0, 0]) - 21.0).abs() < 1e-9);
    assert!((contrast_with_white([255, 255, 255]) - 1.0).abs() < 1e-9);
}

#[test]
fn a_display_name_is_one_short_line() {
    assert_eq!(
        check_display_name("  Acme Books ").unwrap().as_deref(),
        Some("Acme Books")
    );
    assert_eq!(check_display_name("   ").unwrap(), None);
    assert_eq!(
        check_display_name("Acme\nBooks"),
        Err(BrandingError::DisplayName)
    );
    assert_eq!(
        check_display_name(&"x".repeat(61)),
        Err(BrandingError::DisplayName)
    );
}
