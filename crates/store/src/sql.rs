//! SQL that both backends run as written, kept once. Placeholders are
//! PostgreSQL's `$n`; SQLite reads the same text through
//! [`crate::sqlite::dialect`], which spells them `?n`. Statements that differ
//! between the dialects (locking, arrays, upserts that return) stay with
//! their backend.

use std::sync::LazyLock;

/// The columns of a person, in the order both backends read them.
pub const USER_COLUMNS: &str = "user_id, email, password_hash, given_name, family_name, email_verified, \
     company_number, company_name, company_role, created_at_ms, updated_at_ms";

/// What `/userinfo` reads for a token: the token, its family's revocation and
/// the person (`USER_COLUMNS` of `u` from column 5), in one statement.
pub const ACCESS: &str = "SELECT a.verifier_hash, a.scope, a.expires_at_ms, f.client_id, \
     f.revoked_at_ms IS NOT NULL, u.user_id, u.email, u.password_hash, u.given_name, \
     u.family_name, u.email_verified, u.company_number, u.company_name, u.company_role, \
     u.created_at_ms, u.updated_at_ms \
     FROM sso_access_tokens a \
     JOIN sso_families f ON f.family_id = a.family_id \
     JOIN sso_users u ON u.user_id = f.user_id \
     WHERE a.selector = $1";

/// Creates or replaces a CMS page; its version starts at 1 and moves with
/// every put.
pub const PUT_CMS_PAGE: &str =
    "INSERT INTO cms_pages (key, title, body, published, version, updated_at_ms)
     VALUES ($1, $2, $3, $4, 1, $5)
     ON CONFLICT (key) DO UPDATE SET title = excluded.title, body = excluded.body,
         published = excluded.published, version = cms_pages.version + 1,
         updated_at_ms = excluded.updated_at_ms
     RETURNING version";

/// Retention, by what has expired before `$1`. Clock offsets are never
/// negative, so an idempotency record past the service clock's cut-off has
/// expired for every owner (a range of the created index); owners whose
/// clocks run ahead expire theirs sooner, by a statement of each backend's.
pub const PRUNE_IDEMPOTENCY: &str = "DELETE FROM idempotency_keys WHERE created_at_ms < $1";
pub const PRUNE_TOKENS: &str = "DELETE FROM sandbox_tokens WHERE expires_at_ms < $1";
pub const PRUNE_REVOCATIONS: &str = "DELETE FROM revoked_tokens WHERE expires_at_ms < $1";

/// One page of an owner's events, in the shape of the request: `$1` owner,
/// `$2` the cursor's sequence number, `$3` the type, `$4` how many to fetch.
/// One statement per shape, so each is planned for the index it can use (a
/// plan fixed once cannot skip an `$2 IS NULL OR …` branch); an absent
/// parameter is still bound, and tested for NULL.
pub fn events_page(newer: bool, cursor: bool, typed: bool) -> &'static str {
    static SHAPES: LazyLock<Vec<String>> = LazyLock::new(|| {
        (0..8)
            .map(|i| events_page_shape(i & 4 != 0, i & 2 != 0, i & 1 != 0))
            .collect()
    });
    &SHAPES[page_shape(newer, cursor, typed)]
}

/// Which of the eight shapes of [`events_page`] a request has.
pub fn page_shape(newer: bool, cursor: bool, typed: bool) -> usize {
    usize::from(newer) << 2 | usize::from(cursor) << 1 | usize::from(typed)
}

fn events_page_shape(newer: bool, cursor: bool, typed: bool) -> String {
    let (cmp, order) = if newer { (">", "ASC") } else { ("<", "DESC") };
    let cursor = if cursor {
        format!("AND seq {cmp} $2")
    } else {
        "AND CAST($2 AS BIGINT) IS NULL".to_owned()
    };
    let kind = if typed {
        "AND type = $3"
    } else {
        "AND CAST($3 AS TEXT) IS NULL"
    };
    format!(
        "SELECT id, owner, type, created_at_ms, body FROM events
         WHERE owner = $1 {cursor} {kind}
         ORDER BY seq {order} LIMIT $4"
    )
}
