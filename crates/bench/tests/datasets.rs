//! Dataset loaders over the real benchmark data and over malformed temp files.

mod common;

use gqlnav_bench::dataset::{self, Dataset, TargetMode, Variant, WgOptions};
use gqlnav_bench::BenchError;

fn wg(schema: &str, mode: TargetMode, variant: Variant) -> Dataset {
    let opts = WgOptions {
        schema_id: Some(schema.to_string()),
        variant,
        mode,
        strict: true,
    };
    dataset::load_wg_dir(&common::wg_dir().join("queries"), &opts).expect("load WG queries")
}

/// (questions, questions skipped for an empty target list, targets).
fn counts(ds: &Dataset) -> (usize, usize, usize) {
    (ds.questions.len(), ds.skipped_empty, ds.targets_total())
}

#[test]
fn github_tsv_has_200_questions_and_1038_targets() {
    let ds = dataset::load_tsv(&common::wg_dir().join("github-wg.tsv"), true).unwrap();
    assert_eq!(ds.name, "github-wg");
    assert_eq!(ds.questions.len(), 200);
    assert_eq!(ds.targets_total(), 1038);
    assert!(ds.problems.is_empty());
    let q = &ds.questions[0];
    assert_eq!(q.text, "commit history main branch two weeks authors");
    assert_eq!(
        q.targets,
        [
            "Query.repository",
            "Repository.defaultBranchRef",
            "Ref.target",
            "Commit.history",
            "Commit.author",
            "Commit.message"
        ]
    );
    assert_eq!(q.id, "github-wg:5");
    assert!(q.source.ends_with("github-wg.tsv:5"));
    assert_eq!(q.target_lines, vec![5; 6]);
    // The upstream conversion quirks are kept verbatim.
    assert_eq!(
        ds.questions
            .iter()
            .filter(|q| q.text.starts_with(">- "))
            .count(),
        2
    );
    assert!(ds.questions.iter().any(|q| q.text.starts_with('"')));
    assert!(ds
        .questions
        .iter()
        .all(|q| q.targets.iter().all(|t| dataset::is_plain_field(t))));
}

/// The film fixture's 10 questions: `#` lines skipped, ids name the file line, a
/// comma-separated target list split, and every target is a field of films.graphqls.
#[test]
fn films_sample_tsv() {
    let ds = dataset::load_tsv(&common::films("films-sample.tsv"), true).unwrap();
    assert_eq!(ds.name, "films-sample");
    assert_eq!(ds.questions.len(), 10);
    assert_eq!(ds.targets_total(), 11);
    assert!(ds.problems.is_empty(), "{:?}", ds.problems);
    assert_eq!(ds.questions[0].targets, ["Query.films"]);
    assert_eq!(ds.questions[0].id, "films-sample:3");
    let last = &ds.questions[9];
    assert_eq!(last.text, "Where and when is it showing tonight?");
    assert_eq!(last.id, "films-sample:12");
    assert_eq!(last.targets, ["Screening.venueName", "Screening.startsAt"]);
    let g = gqlnav_schema::load_file(&common::films("films.graphqls")).unwrap();
    let problems = dataset::validate_targets(&ds, &g);
    assert!(problems.is_empty(), "{problems:?}");
}

#[test]
fn github_yaml_must_mode_matches_the_tsv() {
    let ds = wg("github", TargetMode::Must, Variant::All);
    assert_eq!(ds.questions.len(), 200);
    assert_eq!(ds.targets_total(), 1038);
    assert_eq!(ds.skipped_empty, 0);
    assert!(ds.problems.is_empty(), "{:?}", ds.problems);
    // Sorted by id, byte order: gh-ext-001 before gh-ext-001-kw.
    assert_eq!(ds.questions[0].id, "gh-ext-001");
    assert_eq!(ds.questions[1].id, "gh-ext-001-kw");
    assert!(!ds.questions[0].is_keyword_variant);
    assert!(ds.questions[1].is_keyword_variant);
    let ids: Vec<&str> = ds.questions.iter().map(|q| q.id.as_str()).collect();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted);

    // The TSV is in file-name order (gh-ext-001-kw.yaml first); pair it up that way.
    let tsv = dataset::load_tsv(&common::wg_dir().join("github-wg.tsv"), true).unwrap();
    let mut by_file: Vec<_> = ds.questions.iter().collect();
    by_file.sort_by_key(|q| format!("{}.yaml", q.id));
    for (y, t) in by_file.iter().zip(&tsv.questions) {
        assert_eq!(y.targets, t.targets, "{}", y.id);
    }

    let q = ds.questions.iter().find(|q| q.id == "gh-ext-024").unwrap();
    assert_eq!(
        q.text,
        "For the HEAD commit of the octocat/example repository, list the workflow run number and check suite conclusion for each check suite."
    );
    assert_eq!(q.schema_id.as_deref(), Some("github"));
    assert_eq!(q.must_include.len(), 10);
    assert_eq!(q.targets.len(), 6);
    assert_eq!(
        q.target_fields,
        ["WorkflowRun.runNumber", "CheckSuite.conclusion"]
    );
    assert_eq!(q.must_exclude, ["Mutation"]);
    assert!(q.source.ends_with("gh-ext-024.yaml:4"), "{}", q.source);
    // `mustInclude:` is line 29 of gh-ext-024.yaml; its first item is line 30.
    assert_eq!(q.target_lines[0], 30);

    let with_subs = ds
        .questions
        .iter()
        .filter(|q| !q.sub_queries.is_empty())
        .count();
    assert_eq!(with_subs, 2, "gh-ext-055 and gh-ext-092 have `queries`");
}

#[test]
fn github_yaml_variants_and_target_mode() {
    let nl = wg("github", TargetMode::Must, Variant::NaturalLanguage);
    assert_eq!(nl.questions.len(), 100);
    assert_eq!(nl.targets_total(), 559);
    assert!(nl.questions.iter().all(|q| !q.is_keyword_variant));

    let kw = wg("github", TargetMode::Must, Variant::Keyword);
    assert_eq!(kw.questions.len(), 100);
    assert!(kw.questions.iter().all(|q| q.id.ends_with("-kw")));

    let t = wg("github", TargetMode::Target, Variant::All);
    assert_eq!(counts(&t), (191, 9, 417));
    assert!(t.questions.iter().all(|q| q.targets == q.target_fields));

    let tkw = wg("github", TargetMode::Target, Variant::Keyword);
    assert_eq!((tkw.questions.len(), tkw.targets_total()), (91, 159));
}

#[test]
fn linear_and_singapore_yaml() {
    let lin = wg("linear", TargetMode::Must, Variant::All);
    assert_eq!(counts(&lin), (200, 0, 853));
    assert!(lin.questions.iter().all(|q| q.id.starts_with("lin-")));
    let lin_t = wg("linear", TargetMode::Target, Variant::All);
    assert_eq!(counts(&lin_t), (192, 8, 402));

    let sg = wg("singapore", TargetMode::Must, Variant::All);
    assert_eq!(counts(&sg), (16, 0, 36));
    assert!(sg.questions.iter().all(|q| q.must_exclude.is_empty()));
    assert!(sg.questions.iter().all(|q| !q.should_include.is_empty()));
    let sg_t = wg("singapore", TargetMode::Target, Variant::All);
    assert_eq!(counts(&sg_t), (16, 0, 34));
}

#[test]
fn no_schema_filter_loads_all_416() {
    let ds =
        dataset::load_wg_dir(&common::wg_dir().join("queries"), &WgOptions::default()).unwrap();
    assert_eq!(ds.questions.len(), 416);
    assert!(ds.problems.is_empty());
}

#[test]
fn malformed_tsv_lines_are_reported_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.tsv");
    let text = "# header\n\
                good question\tA.b, C.d ,,A.b\n\
                \n\
                no tab here\n\
                three\tparts\there\n\
                \x20\x20 padded question\tX.y \x20\n\
                empty targets\t , \n";
    std::fs::write(&path, text).unwrap();
    let ds = dataset::load_tsv(&path, false).unwrap();
    let file = path.display().to_string();
    assert_eq!(ds.questions.len(), 3);
    assert_eq!(
        ds.questions[0].targets,
        ["A.b", "C.d"],
        "stripped, empties dropped, deduped"
    );
    assert_eq!(ds.questions[0].source, format!("{file}:2"));
    assert_eq!(ds.questions[1].text, "padded question");
    assert_eq!(ds.questions[1].targets, ["X.y"]);
    assert!(
        ds.questions[2].targets.is_empty(),
        "an empty target list is kept (scores 0)"
    );
    assert_eq!(ds.questions[2].id, "bad:7");
    assert_eq!(ds.problems.len(), 2);
    assert_eq!(
        (ds.problems[0].file.as_str(), ds.problems[0].line),
        (file.as_str(), 4)
    );
    assert!(
        ds.problems[0].message.contains("found 1 part"),
        "{}",
        ds.problems[0].message
    );
    assert_eq!(ds.problems[1].line, 5);
    assert!(ds.problems[1].message.contains("found 3 part"));
    assert_eq!(
        ds.problems[1].to_string(),
        format!("{file}:5: {}", ds.problems[1].message)
    );

    let err = dataset::load_tsv(&path, true).unwrap_err();
    assert!(matches!(err, BenchError::Malformed { line: 4, .. }));
    assert!(err.to_string().starts_with(&format!("{file}:4: ")), "{err}");

    let err = dataset::load_tsv(&dir.path().join("missing.tsv"), false).unwrap_err();
    assert!(matches!(err, BenchError::Io { .. }));
}

const GOOD: &str = concat!(
    "id: t-001\n",
    "schemaId: github\n",
    "query: >-\n",
    "  Find the\n",
    "  repository.\n",
    "queries:\n",
    "  - part one\n",
    "targetFields:\n",
    "  - Repository.name\n",
    "targetTypes: []\n",
    "mustInclude:\n",
    "  - Query.repository\n",
    "  - Query.repository(name:)\n",
    "  - Repository.name\n",
    "  - Repository\n",
    "  - Repository.name\n",
    "mustExclude:\n",
    "  - Mutation\n",
    "answer:\n",
    "  x: [1, 2]\n",
);

#[test]
fn malformed_yaml_files_are_reported_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(p.join("t-001.yaml"), GOOD).unwrap();
    std::fs::write(
        p.join("t-001-kw.yaml"),
        GOOD.replace("id: t-001", "id: t-001-kw")
            .replace("targetFields:\n  - Repository.name", "targetFields: []"),
    )
    .unwrap();
    std::fs::write(
        p.join("o-001.yaml"),
        GOOD.replace("schemaId: github", "schemaId: linear"),
    )
    .unwrap();
    // Line 4: an unterminated flow sequence.
    std::fs::write(
        p.join("t-002.yaml"),
        "id: t-002\nschemaId: github\nquery: q\nmustInclude: [A.b,\n",
    )
    .unwrap();
    // No `query` key.
    std::fs::write(
        p.join("t-003.yaml"),
        "id: t-003\nschemaId: github\nmustInclude:\n  - A.b\n",
    )
    .unwrap();
    // `mustInclude` is a mapping, not a list (line 4).
    std::fs::write(
        p.join("t-004.yaml"),
        "id: t-004\nschemaId: github\nquery: q\nmustInclude:\n  a: b\n",
    )
    .unwrap();
    std::fs::write(p.join("_meta.json"), "{\"id\": \"x\"}").unwrap();
    std::fs::write(p.join("notes.txt"), "not yaml: [").unwrap();

    let opts = WgOptions {
        schema_id: Some("github".into()),
        ..WgOptions::default()
    };
    let ds = dataset::load_wg_dir(p, &opts).unwrap();
    let ids: Vec<&str> = ds.questions.iter().map(|q| q.id.as_str()).collect();
    assert_eq!(ids, ["t-001", "t-001-kw"], "{:#?}", ds.problems);
    let q = &ds.questions[0];
    assert_eq!(q.text, "Find the repository.");
    assert_eq!(q.sub_queries, ["part one"]);
    assert_eq!(q.targets, ["Query.repository", "Repository.name"]);
    assert_eq!(q.target_lines, [12, 14]);
    assert_eq!(q.must_include.len(), 5);
    assert!(q.source.ends_with("t-001.yaml:4"), "{}", q.source);

    let lines: Vec<(String, usize)> = ds
        .problems
        .iter()
        .map(|p| {
            (
                std::path::Path::new(&p.file)
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
                p.line,
            )
        })
        .collect();
    assert_eq!(lines.len(), 3, "{:#?}", ds.problems);
    assert_eq!(lines[0].0, "t-002.yaml");
    assert_eq!(lines[0].1, 4, "{:?}", ds.problems[0]);
    assert_eq!(lines[1].0, "t-003.yaml");
    assert!(
        ds.problems[1].message.contains("query"),
        "{}",
        ds.problems[1].message
    );
    assert_eq!(
        lines[2],
        ("t-004.yaml".to_string(), 5),
        "{:?}",
        ds.problems[2]
    );
    for pr in &ds.problems {
        assert!(!pr.message.contains('\n'));
    }

    // Target mode: the -kw twin has an empty targetFields and is skipped; linear's is
    // filtered out and not counted.
    let t = dataset::load_wg_dir(
        p,
        &WgOptions {
            mode: TargetMode::Target,
            ..opts.clone()
        },
    )
    .unwrap();
    assert_eq!(t.questions.len(), 1);
    assert_eq!(t.skipped_empty, 1);
    assert_eq!(t.questions[0].targets, ["Repository.name"]);
    assert_eq!(t.questions[0].target_lines, [9]);

    let err = dataset::load_wg_dir(
        p,
        &WgOptions {
            strict: true,
            ..opts
        },
    )
    .unwrap_err();
    match &err {
        BenchError::Malformed { file, line, .. } => {
            assert!(file.ends_with("t-002.yaml"));
            assert!(*line >= 4);
        }
        e => panic!("{e}"),
    }
    assert!(err.to_string().contains("t-002.yaml:"), "{err}");
}
