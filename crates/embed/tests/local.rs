//! LocalModel with tiny random-weight BERT and Qwen3 models built in the test (no
//! downloads): the code paths, prompts, pooling, padding and the load errors.

mod common;

use std::fs;

use common::*;
use gqlnav_embed::{
    Architecture, EmbedError, Embedder, LocalModel, Pooling, PromptOverride, PromptSource,
};

fn texts(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// One document embedded on its own (a batch of one: nothing to pad).
fn embed_alone(m: &LocalModel, text: &str) -> Vec<f32> {
    m.embed_documents(&[text.to_string()]).unwrap().remove(0)
}

#[test]
fn qwen3_config_without_weights_is_a_clear_error() {
    let tmp = tiny_qwen3_dir(false, false);
    let err = LocalModel::load(tmp.path(), PromptOverride::none()).unwrap_err();
    match &err {
        EmbedError::MissingFile { file, dir } => {
            assert_eq!(file, "model.safetensors");
            assert_eq!(dir, tmp.path());
        }
        other => panic!("expected MissingFile, got {other:?}"),
    }
    let msg = err.to_string();
    assert!(msg.contains("model.safetensors"), "{msg}");
    assert!(msg.contains(&tmp.path().display().to_string()), "{msg}");
}

#[test]
fn qwen3_tiny_model_runs_with_last_token_pooling_and_prompts() {
    for bare_names in [false, true] {
        let tmp = tiny_qwen3_dir(true, bare_names);
        let m = LocalModel::load(tmp.path(), PromptOverride::none()).expect("load tiny qwen3");
        assert_eq!(m.architecture(), Architecture::Qwen3);
        assert_eq!(m.pooling(), Pooling::LastToken);
        assert_eq!(m.dims(), Some(TINY_DIMS));
        let p = m.prompts();
        assert_eq!(p.source, PromptSource::ModelConfig);
        assert!(p.query.starts_with("Instruct: "), "{p:?}");
        assert!(p.query.ends_with("\nQuery:"), "{p:?}");
        assert_eq!(p.document, "", "documents are embedded bare");
        assert!(
            m.id().contains("Instruct: "),
            "id includes prompts: {}",
            m.id()
        );

        let docs = texts(&[
            "repository owner name",
            "issue",
            "list the open pull request of a repository",
        ]);
        let all = m.embed_documents(&docs).unwrap();
        assert_eq!(all.len(), 3);
        for (i, d) in docs.iter().enumerate() {
            let single = embed_alone(&m, d);
            assert!(cos(&single, &all[i]) > 0.99999, "unpadded, order restored");
            let n: f32 = single.iter().map(|x| x * x).sum::<f32>().sqrt();
            assert!((n - 1.0).abs() < 1e-4, "normalized");
        }
        // The query side is wrapped in the instruction, so it differs from the document.
        let q = m.embed_query("issue").unwrap();
        assert!(cos(&q, &all[1]) < 0.9999, "query prompt applied");
        // With the query prompt overridden to bare, query == document.
        let bare = LocalModel::load(
            tmp.path(),
            PromptOverride {
                query: Some(String::new()),
                document: None,
            },
        )
        .unwrap();
        assert_eq!(bare.prompts().source, PromptSource::Override);
        assert_ne!(bare.id(), m.id());
        let q2 = bare.embed_query("issue").unwrap();
        assert!(cos(&q2, &all[1]) > 0.99999);
    }
}

#[test]
fn bert_tiny_mean_pooling_honours_the_attention_mask() {
    let tmp = tiny_bert_dir("mean_tokens", serde_json::json!({}), 32);
    let m = LocalModel::load(tmp.path(), PromptOverride::none()).unwrap();
    assert_eq!(m.architecture(), Architecture::Bert);
    assert_eq!(m.pooling(), Pooling::Mean);
    let short = "issue".to_string();
    let long = "list the open pull request of a repository owner name title".to_string();
    let alone = embed_alone(&m, &short);
    // In one batch with a much longer text, the short one is padded.
    let batch = m
        .with_batch_size(8)
        .embed_documents(&[long.clone(), short.clone()])
        .unwrap();
    assert!(
        cos(&alone, &batch[1]) > 0.99999,
        "padding must not change the vector"
    );
}

#[test]
fn bert_tiny_cls_and_max_pooling_load_and_are_padding_invariant() {
    for pooling in ["cls_token", "max_tokens", "lasttoken"] {
        let tmp = tiny_bert_dir(pooling, serde_json::json!({}), 32);
        let m = LocalModel::load(tmp.path(), PromptOverride::none()).unwrap();
        let short = "owner".to_string();
        let long = "the title of the issue of a repository".to_string();
        let alone = embed_alone(&m, &short);
        let batch = m.embed_documents(&[long, short]).unwrap();
        assert!(cos(&alone, &batch[1]) > 0.99999, "{pooling}");
    }
}

#[test]
fn tokenizer_settings_are_replaced_by_max_seq_length() {
    // The tiny tokenizer.json says truncate at 3 and pad to 40; sentence_bert_config
    // says max_seq_length 6.
    let tmp = tiny_bert_dir("mean_tokens", serde_json::json!({}), 6);
    let m = LocalModel::load(tmp.path(), PromptOverride::none()).unwrap();
    assert_eq!(m.max_seq_length(), 6);
    assert_eq!(
        m.token_ids("issue").unwrap().len(),
        3,
        "[CLS] issue [SEP], not padded"
    );
    let ids = m
        .token_ids("the title of the issue of a repository")
        .unwrap();
    assert_eq!(ids.len(), 6, "truncated to max_seq_length");
    assert_eq!(ids.last(), Some(&2), "[SEP] kept after truncation");
}

#[test]
fn no_prompts_means_bare_and_says_so() {
    let tmp = tiny_bert_dir("mean_tokens", serde_json::json!({"__version__": {}}), 32);
    let m = LocalModel::load(tmp.path(), PromptOverride::none()).unwrap();
    let p = m.prompts();
    assert!(p.is_bare());
    assert_eq!(p.source, PromptSource::None);
    assert!(p.describe().contains("bare"), "{}", p.describe());
    let q = m.embed_query("issue title").unwrap();
    let d = embed_alone(&m, "issue title");
    assert!(cos(&q, &d) > 0.99999);
}

#[test]
fn e5_style_prompts_and_default_prompt_name() {
    let tmp = tiny_bert_dir(
        "mean_tokens",
        serde_json::json!({"prompts": {"query": "query: ", "passage": "passage: "}, "default_prompt_name": null}),
        32,
    );
    let m = LocalModel::load(tmp.path(), PromptOverride::none()).unwrap();
    assert_eq!(m.prompts().query, "query: ");
    assert_eq!(m.prompts().document, "passage: ");
    let over = LocalModel::load(
        tmp.path(),
        PromptOverride {
            query: Some("find fields: ".into()),
            document: Some(String::new()),
        },
    )
    .unwrap();
    assert_eq!(over.prompts().query, "find fields: ");
    assert_eq!(over.prompts().document, "");
    assert!(over.name().ends_with("+custom-prompts"));

    let tmp = tiny_bert_dir(
        "mean_tokens",
        serde_json::json!({"prompts": {"query": "query: "}, "default_prompt_name": "query"}),
        32,
    );
    let m = LocalModel::load(tmp.path(), PromptOverride::none()).unwrap();
    assert_eq!(
        m.prompts().document,
        "query: ",
        "default prompt applies to a side without its own"
    );

    let tmp = tiny_bert_dir(
        "mean_tokens",
        serde_json::json!({"prompts": {}, "default_prompt_name": "nope"}),
        32,
    );
    let err = LocalModel::load(tmp.path(), PromptOverride::none()).unwrap_err();
    assert!(
        err.to_string().contains("default_prompt_name `nope`"),
        "{err}"
    );
}

#[test]
fn every_required_file_is_named_when_missing() {
    let src = tiny_bert_dir("mean_tokens", serde_json::json!({}), 32);
    for file in [
        "config.json",
        "tokenizer.json",
        "model.safetensors",
        "modules.json",
        "1_Pooling/config.json",
        "config_sentence_transformers.json",
        "sentence_bert_config.json",
    ] {
        let tmp = copy_model_dir(src.path(), &[file]);
        let err = LocalModel::load(tmp.path(), PromptOverride::none()).unwrap_err();
        match &err {
            EmbedError::MissingFile { file: f, dir } => {
                assert_eq!(f, file);
                assert_eq!(dir, tmp.path());
            }
            other => panic!("{file}: expected MissingFile, got {other:?}"),
        }
        assert!(err.to_string().contains(file), "{err}");
    }
    let err = LocalModel::load(&src.path().join("nope"), PromptOverride::none()).unwrap_err();
    assert!(matches!(err, EmbedError::NotADirectory(_)), "{err:?}");
}

#[test]
fn unsupported_architecture_is_named() {
    let src = tiny_bert_dir("mean_tokens", serde_json::json!({}), 32);
    let tmp = copy_model_dir(src.path(), &[]);
    let mut cfg = tiny_bert_config();
    cfg["model_type"] = serde_json::json!("xlm-roberta");
    fs::write(tmp.path().join("config.json"), cfg.to_string()).unwrap();
    let err = LocalModel::load(tmp.path(), PromptOverride::none()).unwrap_err();
    match &err {
        EmbedError::UnsupportedArchitecture { architecture, .. } => {
            assert_eq!(architecture, "xlm-roberta")
        }
        other => panic!("expected UnsupportedArchitecture, got {other:?}"),
    }
    assert!(err.to_string().contains("xlm-roberta"));
}

#[test]
fn bad_configs_are_errors_not_panics() {
    let src = tiny_bert_dir("mean_tokens", serde_json::json!({}), 32);
    let cases: Vec<(&str, String, &str)> = vec![
        ("config.json", "{not json".into(), "invalid JSON"),
        ("modules.json", "{}".into(), "array"),
        (
            "modules.json",
            r#"[{"path":"","type":"sentence_transformers.models.Transformer"},{"path":"1_Pooling","type":"sentence_transformers.models.Pooling"},{"path":"2_Dense","type":"sentence_transformers.models.Dense"}]"#.into(),
            "Dense",
        ),
        ("1_Pooling/config.json", r#"{"pooling_mode_mean_sqrt_len_tokens": true}"#.into(), "mean_sqrt_len"),
        ("1_Pooling/config.json", r#"{"pooling_mode_mean_tokens": true, "pooling_mode_cls_token": true}"#.into(), "more than one"),
        ("1_Pooling/config.json", r#"{"word_embedding_dimension": 8, "pooling_mode_mean_tokens": true}"#.into(), "expected 16, found 8"),
        ("sentence_bert_config.json", r#"{"max_seq_length": "long"}"#.into(), "not a number"),
        ("tokenizer.json", "{}".into(), "tokenizer"),
    ];
    for (file, text, needle) in cases {
        let tmp = copy_model_dir(src.path(), &[]);
        fs::write(tmp.path().join(file), text).unwrap();
        let err = LocalModel::load(tmp.path(), PromptOverride::none()).unwrap_err();
        assert!(
            err.to_string().contains(needle),
            "{file}: `{err}` lacks `{needle}`"
        );
    }
    // Weights that do not match config.json.
    let tmp = copy_model_dir(src.path(), &[]);
    let mut cfg = tiny_bert_config();
    cfg["hidden_size"] = serde_json::json!(32);
    fs::write(tmp.path().join("config.json"), cfg.to_string()).unwrap();
    let err = LocalModel::load(tmp.path(), PromptOverride::none()).unwrap_err();
    assert!(matches!(err, EmbedError::Model(_)), "{err:?}");
    // A qwen3 config that is missing fields.
    let tmp = tiny_qwen3_dir(true, false);
    let mut cfg = tiny_qwen3_config();
    cfg.as_object_mut().unwrap().remove("head_dim");
    fs::write(tmp.path().join("config.json"), cfg.to_string()).unwrap();
    let err = LocalModel::load(tmp.path(), PromptOverride::none()).unwrap_err();
    assert!(err.to_string().contains("head_dim"), "{err}");
}
