//! Count the tokens of standard input (debugging aid):
//! `cargo run -p gqlnav-corpus --example count -- [cl100k_base|o200k_base] < FILE`.
use std::io::Read;

fn main() {
    let enc = std::env::args()
        .nth(1)
        .and_then(|e| gqlnav_corpus::Encoding::parse(&e))
        .unwrap_or(gqlnav_corpus::Encoding::Cl100kBase);
    let mut s = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut s) {
        eprintln!("{e}");
        std::process::exit(1);
    }
    println!("{}", gqlnav_corpus::TokenMeter::new(enc).count(&s));
}
