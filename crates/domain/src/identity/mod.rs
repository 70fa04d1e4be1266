//! lendhub's OpenID Connect provider's rules (hub seed, Authentication →
//! Identity provider): scopes and claims, which codes and refresh tokens a
//! token request may redeem, PKCE, and back-off for guessing.

pub mod claims;
pub mod grants;
pub mod pkce;
pub mod throttle;
