//! Secrets an operator types: never command-line arguments, which `ps` and
//! shell history keep. A terminal is prompted (without echo, twice); anything
//! else — a pipe, a file, a script — gives the first line of standard input.

use std::io::{BufRead, IsTerminal};

use anyhow::{Context, bail};

pub fn password() -> anyhow::Result<String> {
    if std::io::stdin().is_terminal() {
        let first = rpassword::prompt_password("Password: ").context("reading the password")?;
        let again =
            rpassword::prompt_password("Password again: ").context("reading the password")?;
        if first != again {
            bail!("the two passwords differ");
        }
        return Ok(first);
    }
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .context("reading the password from standard input")?;
    let password = line.trim_end_matches(['\n', '\r']);
    if password.is_empty() {
        bail!(
            "no password on standard input (pipe it in, e.g. `printf '%s\\n' \"$PASSWORD\" | lendhub sso users create …`)"
        );
    }
    Ok(password.to_owned())
}
