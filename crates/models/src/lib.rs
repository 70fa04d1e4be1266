//! Model servers of the counterparties lendhub speaks to, each speaking the
//! counterparty's published protocol over HTTP (or, for the identity
//! provider and the credit bureau, which have none, lendhub's documented
//! JSON shapes), so the adapters that talk
//! to the real services are the ones that talk to these (issue #46). `serve`
//! embeds them where an environment names no real service;
//! `lendhub simulate <kind>` runs one on its own. Each answers from the
//! documented magic values (`docs/guide/src/simulators.md`) and takes injected
//! failures through an admin endpoint under `/_model/`.

pub mod bank;
pub mod bureau;
mod credentials;
mod injected;
mod keyed;
pub mod keys;
pub mod people;
pub mod register;

use std::net::SocketAddr;

/// Serves `router` on `addr` (port 0: any free port) until the process
/// ends; the address it listens on.
pub async fn spawn(addr: SocketAddr, router: axum::Router) -> std::io::Result<SocketAddr> {
    let (bound, ()) = spawn_at(addr, |_| (router, ())).await?;
    Ok(bound)
}

/// `spawn`, for a server that must know its own base URL
/// (`http://{address}`) to build its routes: its discovery document and
/// links name it. `router` may hand back something the caller keeps (`T`), such as the
/// model bank's [`bank::Keeper`].
pub async fn spawn_at<T>(
    addr: SocketAddr,
    router: impl FnOnce(&str) -> (axum::Router, T),
) -> std::io::Result<(SocketAddr, T)> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let bound = listener.local_addr()?;
    let (router, kept) = router(&format!("http://{bound}"));
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, router).await {
            tracing::error!(error = %e, "a model server stopped");
        }
    });
    Ok((bound, kept))
}
