//! A TCP relay between an instance and its database that can slow the link:
//! each chunk is passed on `delay` after it arrived, in order, in each
//! direction. This machine's kernel has no `sch_netem`, so the partition
//! tests add delay here and loss with nftables (`scripts/netns.sh`).

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::Instant;

pub struct Relay {
    pub addr: SocketAddr,
    delay_ms: Arc<AtomicU64>,
}

impl Relay {
    /// Listens on `ip` (port chosen by the system) and relays to `target`,
    /// on a thread and runtime of its own: the test's own thread blocks
    /// while an instance starts, and the instance needs the relay to start.
    pub fn start(ip: &str, target: SocketAddr) -> Relay {
        let listener = std::net::TcpListener::bind((ip, 0)).unwrap();
        listener.set_nonblocking(true).unwrap();
        let relay = Relay {
            addr: listener.local_addr().unwrap(),
            delay_ms: Arc::new(AtomicU64::new(0)),
        };
        let delay = relay.delay_ms.clone();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let listener = TcpListener::from_std(listener).unwrap();
                while let Ok((client, _)) = listener.accept().await {
                    let Ok(server) = TcpStream::connect(target).await else {
                        continue;
                    };
                    let _ = (client.set_nodelay(true), server.set_nodelay(true));
                    let (client_read, client_write) = client.into_split();
                    let (server_read, server_write) = server.into_split();
                    tokio::spawn(pipe(client_read, server_write, delay.clone()));
                    tokio::spawn(pipe(server_read, client_write, delay.clone()));
                }
            });
        });
        relay
    }

    /// From now on, each direction's data arrives `by` later.
    pub fn delay(&self, by: Duration) {
        self.delay_ms
            .store(by.as_millis().try_into().unwrap(), Ordering::Relaxed);
    }
}

async fn pipe(mut from: OwnedReadHalf, mut to: OwnedWriteHalf, delay_ms: Arc<AtomicU64>) {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(Instant, Vec<u8>)>();
    let writer = tokio::spawn(async move {
        while let Some((due, chunk)) = rx.recv().await {
            tokio::time::sleep_until(due).await;
            if to.write_all(&chunk).await.is_err() {
                return;
            }
        }
        let _ = to.shutdown().await;
    });
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match from.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let due = Instant::now() + Duration::from_millis(delay_ms.load(Ordering::Relaxed));
                if tx.send((due, buf[..n].to_vec())).is_err() {
                    break;
                }
            }
        }
    }
    drop(tx);
    let _ = writer.await;
}
