//! The honest baseline: a bare axum server with lendhub's runtime settings
//! (a multi-threaded tokio runtime, one worker per CPU) and its allocator
//! (mimalloc), answering every GET with a fixed small JSON body and no
//! middleware. `bench/run.sh` measures it in the same run as every scenario,
//! and every ratio in `docs/benchmarks.md` is against it.

use std::net::SocketAddr;
use std::process::ExitCode;

use axum::Router;
use axum::http::header;
use axum::response::IntoResponse;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const BODY: &str = r#"{"status":"ok"}"#;

async fn fixed() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "application/json")], BODY)
}

fn main() -> ExitCode {
    let addr: SocketAddr = match std::env::args().nth(1).unwrap_or_default().parse() {
        Ok(addr) => addr,
        Err(_) => {
            eprintln!("usage: lendhub-bare 127.0.0.1:PORT");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("lendhub-bare: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let served = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        println!("bare listening on {}", listener.local_addr()?);
        let app = Router::new().fallback(fixed);
        axum::serve(listener, app).await
    });
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("lendhub-bare: {e}");
            ExitCode::FAILURE
        }
    }
}
