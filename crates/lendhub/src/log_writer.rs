//! The log writer: requests hand whole lines to a queue and one thread
//! writes them to stderr, so no request waits on the terminal, file or pipe
//! behind it. Nothing is dropped: a full queue makes the sender wait.
//!
//! Written for this service rather than taken from `tracing-appender`,
//! whose thread waits for each line on a channel that spins and yields
//! before it sleeps: under load that spinning cost a tenth of the CPU of a
//! two-core machine. This thread blocks only when the queue is empty; while
//! lines keep coming it sleeps for a few milliseconds between batches, so
//! senders never have a sleeping thread to wake, and each batch is one
//! `write`.

use std::io::{self, Write};
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError, sync_channel};
use std::thread::JoinHandle;
use std::time::Duration;

use lendhub_http::access_log::LineWriter;
use tracing_subscriber::fmt::MakeWriter;

/// Lines held at most before senders wait: 160 ms of lines at 100,000 a
/// second, while the thread writes every 2 ms. The queue's slots are
/// allocated and initialised up front (40 bytes each), so it is part of the
/// idle RSS: 128 Ki slots cost 5 MiB of it, 16 Ki cost 640 KiB.
const QUEUE: usize = 16 * 1024;
/// How long the thread lets lines gather while they keep coming.
const GATHER: Duration = Duration::from_millis(2);

enum Msg {
    Line(Vec<u8>),
    Stop,
}

/// Where every log line goes. Cheap to clone.
#[derive(Clone)]
pub struct LogWriter(SyncSender<Msg>);

/// Flushes what is queued and stops the thread when dropped: keep it until
/// the process exits.
pub struct Guard {
    sender: SyncSender<Msg>,
    thread: Option<JoinHandle<()>>,
}

impl LogWriter {
    pub fn to_stderr() -> (Self, Guard) {
        Self::to(io::stderr())
    }

    pub fn to(out: impl Write + Send + 'static) -> (Self, Guard) {
        let (sender, queue) = sync_channel(QUEUE);
        let thread = std::thread::Builder::new()
            .name("log-writer".into())
            .spawn(move || drain(queue, io::BufWriter::with_capacity(64 * 1024, out)))
            .ok();
        let guard = Guard {
            sender: sender.clone(),
            thread,
        };
        (Self(sender), guard)
    }

    fn send(&self, line: &[u8]) {
        // Only fails once the thread has gone, at exit: nowhere left to write.
        let _ = self.0.send(Msg::Line(line.to_vec()));
    }
}

fn drain(queue: Receiver<Msg>, mut out: impl Write) {
    // Nothing queued: sleep until a line arrives.
    while let Ok(first) = queue.recv() {
        let mut next = Some(first);
        loop {
            while let Some(msg) = next.take() {
                match msg {
                    Msg::Line(line) => {
                        let _ = out.write_all(&line);
                    }
                    Msg::Stop => {
                        let _ = out.flush();
                        return;
                    }
                }
                next = match queue.try_recv() {
                    Ok(msg) => Some(msg),
                    Err(TryRecvError::Empty) => None,
                    Err(TryRecvError::Disconnected) => {
                        let _ = out.flush();
                        return;
                    }
                };
            }
            let _ = out.flush();
            // Let the next lines gather rather than waking for each.
            std::thread::sleep(GATHER);
            match queue.try_recv() {
                Ok(msg) => next = Some(msg),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => return,
            }
        }
    }
    let _ = out.flush();
}

impl Drop for Guard {
    fn drop(&mut self) {
        if self.sender.send(Msg::Stop).is_ok()
            && let Some(thread) = self.thread.take()
        {
            let _ = thread.join();
        }
    }
}

/// One tracing event's bytes, sent as one line when dropped (tracing's
/// formatter may write an event in several pieces).
pub struct EventWriter<'a> {
    writer: &'a LogWriter,
    line: Vec<u8>,
}

impl Write for EventWriter<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.line.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for EventWriter<'_> {
    fn drop(&mut self) {
        if !self.line.is_empty() {
            self.writer.send(&self.line);
        }
    }
}

impl<'a> MakeWriter<'a> for LogWriter {
    type Writer = EventWriter<'a>;

    fn make_writer(&'a self) -> Self::Writer {
        EventWriter {
            writer: self,
            line: Vec::new(),
        }
    }
}

impl LineWriter for LogWriter {
    fn write_line(&self, line: &[u8]) {
        self.send(line);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn every_line_is_written_in_order_by_the_time_the_guard_drops() {
        let out = Shared::default();
        let (writer, guard) = LogWriter::to(out.clone());
        let senders: Vec<_> = (0..4)
            .map(|t| {
                let writer = writer.clone();
                std::thread::spawn(move || {
                    for i in 0..1000 {
                        writer.write_line(format!("{t} {i}\n").as_bytes());
                    }
                })
            })
            .collect();
        for sender in senders {
            sender.join().unwrap();
        }
        {
            let mut event = writer.make_writer();
            event.write_all(b"one event ").unwrap();
            event.write_all(b"in two pieces\n").unwrap();
        }
        drop(guard);
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        assert_eq!(text.lines().count(), 4001);
        for t in 0..4 {
            let seen: Vec<usize> = text
                .lines()
                .filter_map(|l| l.strip_prefix(&format!("{t} ")))
                .map(|i| i.parse().unwrap())
                .collect();
            assert_eq!(
                seen,
                (0..1000).collect::<Vec<_>>(),
                "thread {t}'s lines in order"
            );
        }
        assert!(text.ends_with("one event in two pieces\n"));
    }
}
