//! Embeds the guide's sources (`docs/guide/src`: its chapters, SUMMARY.md and
//! images) in the binary, so `serve` renders the guide mdBook builds from
//! the same files, with no build step and nothing read from disk at run time.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::{env, fs};

fn files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            files(&path, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}

fn main() -> std::io::Result<()> {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").map_err(std::io::Error::other)?);
    let src = manifest.join("../../docs/guide/src").canonicalize()?;
    println!("cargo::rerun-if-changed={}", src.display());
    let mut found = Vec::new();
    files(&src, &mut found)?;
    found.sort();
    let mut code = String::from(
        "/// Every file of the guide's sources: its path under `docs/guide/src`, its bytes.\n",
    );
    code.push_str("pub static FILES: &[(&str, &[u8])] = &[\n");
    for path in found {
        let Ok(relative) = path.strip_prefix(&src) else {
            continue;
        };
        let name = relative.to_string_lossy().replace('\\', "/");
        // Dotfiles (editors' swap files, .gitignore) are not the guide's.
        if name.split('/').any(|part| part.starts_with('.')) {
            continue;
        }
        writeln!(
            code,
            "    ({name:?}, include_bytes!({:?})),",
            path.display().to_string()
        )
        .map_err(std::io::Error::other)?;
    }
    code.push_str("];\n");
    fs::write(
        PathBuf::from(env::var("OUT_DIR").map_err(std::io::Error::other)?).join("guide_files.rs"),
        code,
    )
}
