//! `lendhub cms put|list`: the public ring's content pages, written from
//! Markdown files by the operator and read by `GET /public/v1/cms/pages/{key}`.

use std::path::PathBuf;

use anyhow::{Context, bail};
use clap::Subcommand;
use lendhub_domain::clock::Clock;
use lendhub_system::SystemClock;
use serde_json::json;

use crate::config::Config;

#[derive(Subcommand, Debug)]
pub enum CmsCommand {
    /// Create or replace a page from a Markdown file; prints {"key","version","published"}.
    Put {
        /// The page's stable key: 1–64 of a-z, 0-9, `_` and `-`.
        key: String,
        /// The page's body, in Markdown.
        #[arg(long)]
        file: PathBuf,
        /// Publish it (without this flag the page is stored unpublished and
        /// answers 404 until put again with --publish).
        #[arg(long)]
        publish: bool,
        /// Defaults to the file's first `# ` heading, else the key.
        #[arg(long)]
        title: Option<String>,
    },
    /// Every page, one JSON object per line (without bodies).
    List,
}

fn valid_key(key: &str) -> bool {
    (1..=64).contains(&key.len())
        && key
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
}

pub async fn cms(command: CmsCommand, config: &Config) -> anyhow::Result<()> {
    let store = super::database::open_existing_store(config).await?;
    let result = run(command, store.as_ref()).await;
    store.close().await;
    result
}

async fn run(command: CmsCommand, store: &dyn lendhub_store::PublicStore) -> anyhow::Result<()> {
    match command {
        CmsCommand::Put {
            key,
            file,
            publish,
            title,
        } => {
            if !valid_key(&key) {
                bail!("the key must be 1 to 64 characters of a-z, 0-9, _ and -");
            }
            let body = std::fs::read_to_string(&file)
                .with_context(|| format!("reading {}", file.display()))?;
            let title = title
                .or_else(|| {
                    body.lines()
                        .find_map(|l| l.strip_prefix("# ").map(|t| t.trim().to_owned()))
                })
                .unwrap_or_else(|| key.clone());
            let version = store
                .put_cms_page(lendhub_store::CmsPageEdit {
                    key: key.clone(),
                    title: title.clone(),
                    body,
                    published: publish,
                    at_ms: SystemClock.now_ms(),
                })
                .await?;
            println!(
                "{}",
                json!({"key": key, "title": title, "version": version, "published": publish})
            );
        }
        CmsCommand::List => {
            for page in store.list_cms_pages().await? {
                println!(
                    "{}",
                    json!({"key": page.key, "title": page.title, "version": page.version,
                           "published": page.published})
                );
            }
        }
    }
    Ok(())
}
