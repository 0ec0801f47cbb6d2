//! Print the query paths the schema graph offers to a type (debugging aid):
//! `cargo run -p gqlnav-slice --example paths -- SCHEMA.graphql Type [N] [selectable]`
//! (`selectable`: the reader's order, [`gqlnav_schema::PathOptions::selectable_first`]).
fn main() {
    let a: Vec<String> = std::env::args().collect();
    if a.len() < 3 {
        eprintln!("usage: paths SCHEMA Type [N]");
        std::process::exit(2);
    }
    let g = match gqlnav_schema::load_file(std::path::Path::new(&a[1])) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let n = a.get(3).and_then(|n| n.parse().ok()).unwrap_or(20);
    for p in g.paths_to_type(
        &a[2],
        None,
        gqlnav_schema::PathOptions {
            max_paths: n,
            max_depth: 6,
            include_mutation: false,
            selectable_first: a.get(4).is_some_and(|s| s == "selectable"),
        },
    ) {
        println!("{}", p.join(" → "));
    }
}
