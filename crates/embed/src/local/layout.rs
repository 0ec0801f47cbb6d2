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
    let text = read_text(dir, file)?;
    serde_json::from_str(&text).map_err(|e| EmbedError::Config {
        path: dir.join(file),
        reason: format!("invalid JSON: {e}"),
    })
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
