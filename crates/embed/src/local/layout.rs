//! Reading a sentence-transformers folder: its JSON files, module list, pooling and
//! prompt settings, architecture, weight files and a display name. Nothing here runs a
//! model; [`super::LocalModel::load`] puts the pieces together.

use std::collections::BTreeSet;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Architecture, Pooling};
use crate::error::{EmbedError, Result};
use crate::{PromptSource, Prompts};

pub(super) fn read_text(dir: &Path, file: &str) -> Result<String> {
    let path = dir.join(file);
    if !path.is_file() {
        return Err(EmbedError::MissingFile {
            file: file.to_string(),
            dir: dir.to_path_buf(),
        });
    }
    fs::read_to_string(&path).map_err(|source| EmbedError::Io { path, source })
}

pub(super) fn read_json(dir: &Path, file: &str) -> Result<Value> {
    read_json_text(dir, file).map(|(_, v)| v)
}

/// A JSON file, parsed and as read (the text goes into the fingerprint).
pub(super) fn read_json_text(dir: &Path, file: &str) -> Result<(String, Value)> {
    let text = read_text(dir, file)?;
    let v = serde_json::from_str(&text).map_err(|e| EmbedError::Config {
        path: dir.join(file),
        reason: format!("invalid JSON: {e}"),
    })?;
    Ok((text, v))
}

pub(super) fn require(dir: &Path, file: &str) -> Result<PathBuf> {
    let path = dir.join(file);
    if path.is_file() {
        Ok(path)
    } else {
        Err(EmbedError::MissingFile {
            file: file.to_string(),
            dir: dir.to_path_buf(),
        })
    }
}

/// Everything [`super::LocalModel::load`] reads from the folder before it builds the
/// tokenizer and loads the weights. The raw texts are kept for the fingerprint.
pub(super) struct Layout {
    pub(super) config_text: String,
    pub(super) config: Value,
    pub(super) arch: Architecture,
    pub(super) tokenizer_path: PathBuf,
    pub(super) weights: Vec<PathBuf>,
    pub(super) modules_text: String,
    /// The Pooling module's config file, relative to the folder.
    pub(super) pooling_file: String,
    pub(super) pooling_json: Value,
    pub(super) pooling: Pooling,
    /// The Pooling config's `word_embedding_dimension`, when given.
    pub(super) pooled_dim: Option<usize>,
    pub(super) normalize: bool,
    pub(super) st_text: String,
    /// The model's own prompts (before any override).
    pub(super) prompts: Prompts,
    pub(super) sbert_text: String,
    pub(super) do_lower_case: bool,
    pub(super) max_seq_length: usize,
}

/// Read and check the sentence-transformers layout of `dir`.
pub(super) fn read_layout(dir: &Path) -> Result<Layout> {
    // Configuration, in a fixed order so the first missing file is reported.
    let (config_text, config) = read_json_text(dir, "config.json")?;
    let arch = architecture(dir, &config)?;
    let tokenizer_path = require(dir, "tokenizer.json")?;
    let weights = weight_files(dir)?;
    let (modules_text, modules_json) = read_json_text(dir, "modules.json")?;
    let modules = parse_modules(dir, &modules_json)?;
    let (pooling_file, normalize) = module_pipeline(dir, &modules)?;
    let pooling_json = read_json(dir, &pooling_file)?;
    let (pooling, pooled_dim) = parse_pooling(dir, &pooling_file, &pooling_json)?;
    let (st_text, st_json) = read_json_text(dir, "config_sentence_transformers.json")?;
    let prompts = parse_prompts(dir, &st_json)?;
    let (sbert_text, sbert) = read_json_text(dir, "sentence_bert_config.json")?;
    let do_lower_case = sbert
        .get("do_lower_case")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let max_seq_length = read_max_seq_length(dir, &config, &sbert)?;
    Ok(Layout {
        config_text,
        config,
        arch,
        tokenizer_path,
        weights,
        modules_text,
        pooling_file,
        pooling_json,
        pooling,
        pooled_dim,
        normalize,
        st_text,
        prompts,
        sbert_text,
        do_lower_case,
        max_seq_length,
    })
}

/// Check the module pipeline (Transformer at the root → Pooling → optional Normalize);
/// returns the Pooling module's config file and whether the vectors are normalised.
fn module_pipeline(dir: &Path, modules: &[Module]) -> Result<(String, bool)> {
    let unsupported = |what: String| EmbedError::Unsupported {
        what,
        dir: dir.to_path_buf(),
    };
    let mut pooling_file = None;
    let mut normalize = false;
    for m in modules {
        let short = m.kind.rsplit('.').next().unwrap_or(&m.kind);
        match short {
            "Transformer" => {
                if !m.path.is_empty() {
                    return Err(unsupported(format!(
                        "modules.json: the Transformer module lives in `{}`; only the directory root is supported",
                        m.path
                    )));
                }
            }
            "Pooling" => {
                let p = m.path.trim_end_matches('/');
                if p.contains("..") || p.starts_with('/') {
                    return Err(EmbedError::Config {
                        path: dir.join("modules.json"),
                        reason: format!("Pooling path `{}` leaves the model directory", m.path),
                    });
                }
                pooling_file = Some(if p.is_empty() {
                    "config.json".to_string()
                } else {
                    format!("{p}/config.json")
                });
            }
            "Normalize" => normalize = true,
            _ => {
                return Err(unsupported(format!(
                "modules.json lists module type `{}` (supported: Transformer, Pooling, Normalize)",
                m.kind
            )))
            }
        }
    }
    let pooling_file =
        pooling_file.ok_or_else(|| unsupported("modules.json lists no Pooling module".into()))?;
    Ok((pooling_file, normalize))
}

/// The token limit: sentence_bert_config.json's `max_seq_length` (else config.json's
/// `max_position_embeddings`, else 512), capped at `max_position_embeddings`.
fn read_max_seq_length(dir: &Path, config: &Value, sbert: &Value) -> Result<usize> {
    let max_positions = config
        .get("max_position_embeddings")
        .and_then(Value::as_u64)
        .map(|n| n as usize);
    let max_seq_length = match sbert.get("max_seq_length") {
        Some(Value::Number(n)) => {
            n.as_u64()
                .map(|n| n as usize)
                .ok_or_else(|| EmbedError::Config {
                    path: dir.join("sentence_bert_config.json"),
                    reason: format!("max_seq_length `{n}` is not a positive integer"),
                })?
        }
        None | Some(Value::Null) => max_positions.unwrap_or(512),
        Some(other) => {
            return Err(EmbedError::Config {
                path: dir.join("sentence_bert_config.json"),
                reason: format!("max_seq_length `{other}` is not a number"),
            })
        }
    };
    let max_seq_length = match max_positions {
        Some(p) => max_seq_length.min(p),
        None => max_seq_length,
    };
    if max_seq_length == 0 {
        return Err(EmbedError::Config {
            path: dir.join("sentence_bert_config.json"),
            reason: "max_seq_length is 0".into(),
        });
    }
    Ok(max_seq_length)
}

/// One entry of modules.json.
pub(super) struct Module {
    pub(super) kind: String,
    pub(super) path: String,
}

pub(super) fn parse_modules(dir: &Path, v: &Value) -> Result<Vec<Module>> {
    let bad = |reason: &str| EmbedError::Config {
        path: dir.join("modules.json"),
        reason: reason.to_string(),
    };
    let arr = v.as_array().ok_or_else(|| bad("expected a JSON array"))?;
    arr.iter()
        .map(|m| {
            let kind = m
                .get("type")
                .and_then(Value::as_str)
                .ok_or_else(|| bad("a module has no string `type`"))?;
            let path = m.get("path").and_then(Value::as_str).unwrap_or("");
            Ok(Module {
                kind: kind.to_string(),
                path: path.to_string(),
            })
        })
        .collect()
}

pub(super) fn parse_pooling(dir: &Path, file: &str, v: &Value) -> Result<(Pooling, Option<usize>)> {
    let flag = |k: &str| v.get(k).and_then(Value::as_bool).unwrap_or(false);
    let mut modes = Vec::new();
    if flag("pooling_mode_mean_tokens") {
        modes.push(Pooling::Mean);
    }
    if flag("pooling_mode_cls_token") {
        modes.push(Pooling::Cls);
    }
    if flag("pooling_mode_max_tokens") {
        modes.push(Pooling::Max);
    }
    if flag("pooling_mode_lasttoken") {
        modes.push(Pooling::LastToken);
    }
    // Newer sentence-transformers may also write a single `pooling_mode` string.
    if modes.is_empty() {
        match v.get("pooling_mode").and_then(Value::as_str) {
            Some("mean") => modes.push(Pooling::Mean),
            Some("cls") => modes.push(Pooling::Cls),
            Some("max") => modes.push(Pooling::Max),
            Some("lasttoken") => modes.push(Pooling::LastToken),
            _ => {}
        }
    }
    let unsupported = |what: String| EmbedError::Unsupported {
        what,
        dir: dir.to_path_buf(),
    };
    for k in [
        "pooling_mode_mean_sqrt_len_tokens",
        "pooling_mode_weightedmean_tokens",
    ] {
        if flag(k) {
            return Err(unsupported(format!("{file}: `{k}` pooling")));
        }
    }
    if v.get("include_prompt").and_then(Value::as_bool) == Some(false) {
        return Err(unsupported(format!(
            "{file}: `include_prompt: false` (pooling that excludes prompt tokens)"
        )));
    }
    let dim = v
        .get("word_embedding_dimension")
        .and_then(Value::as_u64)
        .map(|d| d as usize);
    match modes.as_slice() {
        [one] => Ok((*one, dim)),
        [] => Err(unsupported(format!("{file}: no pooling mode is enabled"))),
        _ => Err(unsupported(format!(
            "{file}: more than one pooling mode is enabled ({})",
            modes
                .iter()
                .map(|m| m.name())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// Prompts from config_sentence_transformers.json, the way sentence-transformers picks
/// them for `encode_query` / `encode_document`: the `query` prompt for queries; the
/// first of `document`, `passage`, `corpus` for documents; a side with no prompt of its
/// own falls back to `default_prompt_name` when that is set.
pub(super) fn parse_prompts(dir: &Path, v: &Value) -> Result<Prompts> {
    let file = "config_sentence_transformers.json";
    let prompts = match v.get("prompts") {
        None | Some(Value::Null) => serde_json::Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(_) => {
            return Err(EmbedError::Config {
                path: dir.join(file),
                reason: "`prompts` is not an object".into(),
            })
        }
    };
    let get = |k: &str| prompts.get(k).and_then(Value::as_str).map(str::to_string);
    let default = match v.get("default_prompt_name") {
        None | Some(Value::Null) => None,
        Some(Value::String(name)) => Some(get(name).ok_or_else(|| EmbedError::Config {
            path: dir.join(file),
            reason: format!("default_prompt_name `{name}` is not a key of `prompts`"),
        })?),
        Some(_) => {
            return Err(EmbedError::Config {
                path: dir.join(file),
                reason: "`default_prompt_name` is not a string".into(),
            })
        }
    };
    let query = get("query").or_else(|| default.clone());
    let document = get("document")
        .or_else(|| get("passage"))
        .or_else(|| get("corpus"))
        .or(default);
    let any = query.as_deref().is_some_and(|p| !p.is_empty())
        || document.as_deref().is_some_and(|p| !p.is_empty());
    Ok(Prompts {
        query: query.unwrap_or_default(),
        document: document.unwrap_or_default(),
        source: if any {
            PromptSource::ModelConfig
        } else {
            PromptSource::None
        },
    })
}

pub(super) fn architecture(dir: &Path, config: &Value) -> Result<Architecture> {
    let model_type = config.get("model_type").and_then(Value::as_str);
    let archs: Vec<&str> = config
        .get("architectures")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    match model_type {
        Some("bert") => Ok(Architecture::Bert),
        Some("qwen3") => Ok(Architecture::Qwen3),
        Some(other) => Err(EmbedError::UnsupportedArchitecture {
            architecture: other.to_string(),
            dir: dir.to_path_buf(),
        }),
        None => {
            if archs.iter().any(|a| a.starts_with("Bert")) {
                Ok(Architecture::Bert)
            } else if archs.iter().any(|a| a.starts_with("Qwen3")) {
                Ok(Architecture::Qwen3)
            } else {
                Err(EmbedError::UnsupportedArchitecture {
                    architecture: if archs.is_empty() {
                        "(config.json has neither `model_type` nor `architectures`)".into()
                    } else {
                        archs.join(", ")
                    },
                    dir: dir.to_path_buf(),
                })
            }
        }
    }
}

/// The weight files: `model.safetensors`, or the shards named by
/// `model.safetensors.index.json`.
/// `config.json` read as one architecture's config (`what` names it in the error).
pub(super) fn arch_config<T: serde::de::DeserializeOwned>(
    config: &Value,
    dir: &Path,
    what: &str,
) -> Result<T> {
    serde_json::from_value(config.clone()).map_err(|e| EmbedError::Config {
        path: dir.join("config.json"),
        reason: format!("not a {what} config: {e}"),
    })
}

pub(super) fn weight_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let single = dir.join("model.safetensors");
    if single.is_file() {
        return Ok(vec![single]);
    }
    let index_name = "model.safetensors.index.json";
    if !dir.join(index_name).is_file() {
        return Err(EmbedError::MissingFile {
            file: "model.safetensors".into(),
            dir: dir.to_path_buf(),
        });
    }
    let index = read_json(dir, index_name)?;
    let shards: BTreeSet<String> = index
        .get("weight_map")
        .and_then(Value::as_object)
        .ok_or_else(|| EmbedError::Config {
            path: dir.join(index_name),
            reason: "no `weight_map` object".into(),
        })?
        .values()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect();
    if shards.is_empty() {
        return Err(EmbedError::Config {
            path: dir.join(index_name),
            reason: "`weight_map` names no files".into(),
        });
    }
    shards
        .iter()
        .map(|s| {
            if s.contains('/') || s.contains('\\') || s.contains("..") {
                return Err(EmbedError::Config {
                    path: dir.join(index_name),
                    reason: format!("shard name `{s}` is not a plain file name"),
                });
            }
            require(dir, s)
        })
        .collect()
}

/// The safetensors header (8-byte length + JSON), cheap to read; it changes whenever the
/// tensor layout does.
pub(super) fn safetensors_header(path: &Path) -> Result<Vec<u8>> {
    let io = |source| EmbedError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut f = fs::File::open(path).map_err(io)?;
    let mut len = [0u8; 8];
    f.read_exact(&mut len).map_err(io)?;
    let n = u64::from_le_bytes(len).min(100 << 20);
    let mut header = Vec::new();
    f.take(n).read_to_end(&mut header).map_err(io)?;
    let mut out = len.to_vec();
    out.extend(header);
    Ok(out)
}

pub(super) fn readme_title(dir: &Path) -> Option<String> {
    let text = fs::read_to_string(dir.join("README.md")).ok()?;
    let mut lines = text.lines();
    let mut in_front = false;
    let mut first = true;
    for line in lines.by_ref() {
        let t = line.trim();
        if first && t == "---" {
            in_front = true;
            first = false;
            continue;
        }
        first = false;
        if in_front {
            if t == "---" {
                in_front = false;
            }
            continue;
        }
        if let Some(title) = t.strip_prefix("# ") {
            let title = title.trim();
            let ok = !title.is_empty()
                && title.len() <= 80
                && title
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c));
            return ok.then(|| title.rsplit('/').next().unwrap_or(title).to_string());
        }
    }
    None
}

/// A display name: the README's title when it is a model-like name, else the directory
/// name (skipping generic names such as `model`).
pub(super) fn model_name(dir: &Path) -> String {
    if let Some(t) = readme_title(dir) {
        return t;
    }
    let abs = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let mut comps: Vec<String> = abs
        .components()
        .filter_map(|c| c.as_os_str().to_str().map(str::to_string))
        .collect();
    while let Some(last) = comps.pop() {
        let generic = matches!(
            last.to_ascii_lowercase().as_str(),
            "model" | "models" | "snapshots" | "" | "/"
        );
        if !generic {
            return last;
        }
    }
    "local-model".to_string()
}
