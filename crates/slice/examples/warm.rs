//! Time `Slicer::new` and `Slicer::warm` on a schema, and the saved root paths
//! (`Slicer::export_paths`: size, and the time to import them into a new slicer):
//! `cargo run --release -p gqlnav-slice --example warm -- SCHEMA.graphql [THREADS]`.
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let Some(path) = a.get(1) else {
        eprintln!("usage: warm SCHEMA [THREADS]");
        std::process::exit(2);
    };
    let threads = a.get(2).and_then(|n| n.parse().ok()).unwrap_or(2);
    let g = match gqlnav_schema::load_file(std::path::Path::new(path)) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let t = std::time::Instant::now();
    let s = match gqlnav_slice::Slicer::new(std::sync::Arc::new(g)) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    println!("new: {:?}", t.elapsed());
    let t = std::time::Instant::now();
    s.warm(&gqlnav_slice::Knobs::default(), threads);
    println!("warm ({threads} threads): {:?}", t.elapsed());
    let saved = s.export_paths();
    println!("export_paths: {} bytes", saved.len());
    let fresh = match gqlnav_slice::Slicer::new(s.graph().clone()) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let t = std::time::Instant::now();
    if let Err(e) = fresh.import_paths(&saved) {
        eprintln!("{e}");
        std::process::exit(1);
    }
    println!("import_paths: {:?}", t.elapsed());
}
