//! In-process embedding models (candle) loaded from a local sentence-transformers folder.
//!
//! The folder must hold the sentence-transformers layout:
//!
//! | file | used for |
//! |---|---|
//! | `config.json` | architecture (`model_type`) and model hyper-parameters |
//! | `tokenizer.json` | the tokenizer (its own truncation/padding settings are replaced) |
//! | `model.safetensors` (or `model.safetensors.index.json` + shards) | weights |
//! | `modules.json` | the module pipeline: Transformer → Pooling → (Normalize) |
//! | `1_Pooling/config.json` (the Pooling module's path) | pooling mode |
//! | `config_sentence_transformers.json` | `prompts` and `default_prompt_name` |
//! | `sentence_bert_config.json` | `max_seq_length`, `do_lower_case` |
//!
//! Weights are only ever read from that directory; nothing is downloaded.
//!
//! Two families run:
//! - **BERT** (`model_type: bert`: all-MiniLM, bge, e5 …) with
//!   [`candle_transformers::models::bert`]. Texts are sorted by token length and run in
//!   batches (32 by default), right-padded, with the attention mask passed to the model
//!   and honoured by the pooling.
//! - **Qwen3** (`model_type: qwen3`: Qwen3-Embedding) with
//!   [`candle_transformers::models::qwen3`]. That model takes no padding mask, so texts
//!   are embedded unpadded, one at a time; pooling is normally the last token. Which
//!   token is last is decided by `tokenizer.json`'s post-processor (special tokens
//!   included), as in sentence-transformers. Weights are loaded as f32 on the CPU;
//!   checkpoints saved without the `model.` tensor prefix are accepted. No Qwen3 weights
//!   are available offline here, so this path is tested with a tiny random model only.

use std::fs;
use std::path::{Path, PathBuf};

use candle_core::{DType, Device, IndexOp, Tensor, D};
use candle_nn::VarBuilder;
use candle_transformers::models::{bert, qwen3};
use serde_json::Value;
use sha2::{Digest, Sha256};
use tokenizers::{Tokenizer, TruncationDirection, TruncationParams, TruncationStrategy};

use crate::error::{EmbedError, Result};

mod layout;
use crate::{l2_normalize, Embedder, Progress, PromptOverride, PromptSource, Prompts};
use layout::{arch_config, model_name, read_layout, safetensors_header, Layout};

/// The model family found in `config.json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Architecture {
    /// BERT encoders (`model_type: bert`).
    Bert,
    /// Qwen3 decoders (`model_type: qwen3`), e.g. Qwen3-Embedding.
    Qwen3,
}

impl Architecture {
    /// A short name (`bert`, `qwen3`).
    pub fn name(self) -> &'static str {
        match self {
            Architecture::Bert => "bert",
            Architecture::Qwen3 => "qwen3",
        }
    }
}

/// How token states become one vector (from the Pooling module's config).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pooling {
    /// Mean over non-padding tokens (`pooling_mode_mean_tokens`).
    Mean,
    /// The first token (`pooling_mode_cls_token`).
    Cls,
    /// Element-wise max over non-padding tokens (`pooling_mode_max_tokens`).
    Max,
    /// The last non-padding token (`pooling_mode_lasttoken`).
    LastToken,
}

impl Pooling {
    /// A short name (`mean`, `cls`, `max`, `lasttoken`).
    pub fn name(self) -> &'static str {
        match self {
            Pooling::Mean => "mean",
            Pooling::Cls => "cls",
            Pooling::Max => "max",
            Pooling::LastToken => "lasttoken",
        }
    }
}

enum Net {
    Bert(bert::BertModel),
    /// Kept pristine (empty KV cache); each text runs on a cheap clone (tensors are
    /// reference counted), so no state carries over between texts.
    Qwen3(qwen3::Model),
}

/// Default texts per forward pass for BERT models.
pub const DEFAULT_BATCH_SIZE: usize = 32;

/// An embedding model running in-process on the CPU (f32).
pub struct LocalModel {
    dir: PathBuf,
    name: String,
    arch: Architecture,
    pooling: Pooling,
    normalize: bool,
    max_seq_length: usize,
    do_lower_case: bool,
    tokenizer: Tokenizer,
    net: Net,
    device: Device,
    dims: usize,
    pad_id: u32,
    prompts: Prompts,
    fingerprint: String,
    batch_size: usize,
}

impl std::fmt::Debug for LocalModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalModel")
            .field("dir", &self.dir)
            .field("name", &self.name)
            .field("arch", &self.arch)
            .field("pooling", &self.pooling)
            .field("normalize", &self.normalize)
            .field("max_seq_length", &self.max_seq_length)
            .field("dims", &self.dims)
            .field("prompts", &self.prompts)
            .finish_non_exhaustive()
    }
}

impl LocalModel {
    /// Load a model from a local sentence-transformers directory.
    ///
    /// `prompts_override` replaces the model's query and/or document prompt.
    ///
    /// Errors: a missing file ([`EmbedError::MissingFile`], naming file and directory),
    /// an architecture other than BERT or Qwen3
    /// ([`EmbedError::UnsupportedArchitecture`]), unsupported pooling or modules
    /// ([`EmbedError::Unsupported`]), unparsable configs ([`EmbedError::Config`]) and
    /// weights that do not fit the config ([`EmbedError::Model`]).
    pub fn load(dir: &Path, prompts_override: PromptOverride) -> Result<LocalModel> {
        if !dir.is_dir() {
            return Err(EmbedError::NotADirectory(dir.to_path_buf()));
        }
        let layout = read_layout(dir)?;
        let tokenizer = build_tokenizer(&layout.tokenizer_path, layout.max_seq_length)?;
        let fingerprint = fingerprint(&layout)?;
        let device = Device::Cpu;
        let (net, dims, pad_id) =
            load_net(dir, layout.arch, &layout.config, &layout.weights, &device)?;
        if let Some(d) = layout.pooled_dim {
            if d != dims {
                return Err(EmbedError::DimsMismatch {
                    context: format!(
                        "{} word_embedding_dimension vs config.json hidden_size in `{}`",
                        layout.pooling_file,
                        dir.display()
                    ),
                    expected: dims,
                    found: d,
                });
            }
        }

        Ok(LocalModel {
            dir: dir.to_path_buf(),
            name: model_name(dir),
            arch: layout.arch,
            pooling: layout.pooling,
            normalize: layout.normalize,
            max_seq_length: layout.max_seq_length,
            do_lower_case: layout.do_lower_case,
            tokenizer,
            net,
            device,
            dims,
            pad_id,
            prompts: prompts_override.apply(layout.prompts),
            fingerprint,
            batch_size: DEFAULT_BATCH_SIZE,
        })
    }

    /// Replace the display name (defaults to the README title or directory name).
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Set the BERT batch size (texts per forward pass, at least 1). Qwen3 always runs
    /// one text at a time.
    pub fn with_batch_size(mut self, batch_size: usize) -> Self {
        self.batch_size = batch_size.max(1);
        self
    }

    /// The model directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The model family.
    pub fn architecture(&self) -> Architecture {
        self.arch
    }

    /// The pooling mode.
    pub fn pooling(&self) -> Pooling {
        self.pooling
    }

    /// Whether the pipeline ends in a Normalize module.
    pub fn normalizes(&self) -> bool {
        self.normalize
    }

    /// Token limit per text (longer texts are truncated).
    pub fn max_seq_length(&self) -> usize {
        self.max_seq_length
    }

    /// Token ids of a text as the model sees it (prompt not applied), after truncation.
    pub fn token_ids(&self, text: &str) -> Result<Vec<u32>> {
        Ok(self.encode(&[self.prepare("", text)])?.remove(0).0)
    }

    fn prepare(&self, prompt: &str, text: &str) -> String {
        let s = format!("{prompt}{text}");
        if self.do_lower_case {
            s.to_lowercase()
        } else {
            s
        }
    }

    fn encode(&self, texts: &[String]) -> Result<Vec<(Vec<u32>, Vec<u32>)>> {
        let enc = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| EmbedError::Tokenizer(e.to_string()))?;
        Ok(enc
            .into_iter()
            .map(|e| (e.get_ids().to_vec(), e.get_type_ids().to_vec()))
            .collect())
    }

    fn embed_prepared(&self, texts: &[String], progress: Progress<'_>) -> Result<Vec<Vec<f32>>> {
        let total = texts.len();
        progress(0, total);
        let encoded = self.encode(texts)?;
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); total];
        let mut order: Vec<usize> = (0..total).collect();
        order.sort_by_key(|&i| encoded[i].0.len());
        let batch = match self.net {
            Net::Bert(_) => self.batch_size,
            Net::Qwen3(_) => 1,
        };
        let mut done = 0;
        for chunk in order.chunks(batch) {
            let vecs = self.forward_batch(chunk.iter().map(|&i| &encoded[i]).collect())?;
            for (&i, mut v) in chunk.iter().zip(vecs) {
                if self.normalize {
                    l2_normalize(&mut v);
                }
                out[i] = v;
            }
            done += chunk.len();
            progress(done, total);
        }
        Ok(out)
    }

    /// Run one batch (all of similar length); returns pooled vectors in batch order.
    fn forward_batch(&self, items: Vec<&(Vec<u32>, Vec<u32>)>) -> Result<Vec<Vec<f32>>> {
        let lens: Vec<usize> = items.iter().map(|(ids, _)| ids.len()).collect();
        let max_len = lens.iter().copied().max().unwrap_or(0);
        if max_len == 0 {
            return Ok(vec![vec![0.0; self.dims]; items.len()]);
        }
        match &self.net {
            Net::Bert(model) => {
                let b = items.len();
                let mut ids = Vec::with_capacity(b * max_len);
                let mut types = Vec::with_capacity(b * max_len);
                let mut mask = Vec::with_capacity(b * max_len);
                for (tid, ttype) in &items {
                    let pad = max_len - tid.len();
                    ids.extend_from_slice(tid);
                    ids.extend(std::iter::repeat_n(self.pad_id, pad));
                    types.extend_from_slice(ttype);
                    types.extend(std::iter::repeat_n(0u32, pad));
                    mask.extend(std::iter::repeat_n(1u32, tid.len()));
                    mask.extend(std::iter::repeat_n(0u32, pad));
                }
                let ids = Tensor::from_vec(ids, (b, max_len), &self.device)?;
                let types = Tensor::from_vec(types, (b, max_len), &self.device)?;
                let mask = Tensor::from_vec(mask, (b, max_len), &self.device)?;
                let hidden = model.forward(&ids, &types, Some(&mask))?;
                let pooled = pool(&hidden, &mask, &lens, self.pooling)?;
                Ok(pooled.to_vec2::<f32>()?)
            }
            Net::Qwen3(model) => {
                let mut out = Vec::with_capacity(items.len());
                for (tid, _) in items {
                    if tid.is_empty() {
                        out.push(vec![0.0; self.dims]);
                        continue;
                    }
                    let mut m = model.clone();
                    let ids = Tensor::from_vec(tid.clone(), (1, tid.len()), &self.device)?;
                    let hidden = m.forward(&ids, 0)?.to_dtype(DType::F32)?;
                    let mask = Tensor::ones((1, tid.len()), DType::U32, &self.device)?;
                    let pooled = pool(&hidden, &mask, &[tid.len()], self.pooling)?;
                    out.extend(pooled.to_vec2::<f32>()?);
                }
                Ok(out)
            }
        }
    }
}

/// Tokenizer: truncation to max_seq_length, no padding (we pad per batch).
fn build_tokenizer(tokenizer_path: &Path, max_seq_length: usize) -> Result<Tokenizer> {
    let mut tokenizer = Tokenizer::from_file(tokenizer_path)
        .map_err(|e| EmbedError::Tokenizer(format!("{}: {e}", tokenizer_path.display())))?;
    tokenizer
        .with_truncation(Some(TruncationParams {
            direction: TruncationDirection::Right,
            max_length: max_seq_length,
            strategy: TruncationStrategy::LongestFirst,
            stride: 0,
        }))
        .map_err(|e| EmbedError::Tokenizer(format!("{}: {e}", tokenizer_path.display())))?;
    tokenizer.with_padding(None);
    Ok(tokenizer)
}

/// Fingerprint of everything that defines the model (weights by header + size).
fn fingerprint(layout: &Layout) -> Result<String> {
    let mut h = Sha256::new();
    for part in [
        &layout.config_text,
        &layout.modules_text,
        &layout.st_text,
        &layout.sbert_text,
    ] {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    h.update(layout.pooling_json.to_string().as_bytes());
    let tok_bytes = fs::read(&layout.tokenizer_path).map_err(|source| EmbedError::Io {
        path: layout.tokenizer_path.clone(),
        source,
    })?;
    h.update((tok_bytes.len() as u64).to_le_bytes());
    h.update(&tok_bytes);
    for w in &layout.weights {
        let size = fs::metadata(w)
            .map_err(|source| EmbedError::Io {
                path: w.clone(),
                source,
            })?
            .len();
        h.update(size.to_le_bytes());
        h.update(safetensors_header(w)?);
    }
    let digest = h.finalize();
    Ok(digest[..8].iter().map(|b| format!("{b:02x}")).collect())
}

/// The network (BERT or Qwen3) from the weight files, with its hidden size and padding
/// token id.
fn load_net(
    dir: &Path,
    arch: Architecture,
    config: &Value,
    weights: &[PathBuf],
    device: &Device,
) -> Result<(Net, usize, u32)> {
    // SAFETY: the weight files are memory-mapped read-only while the tensors are
    // copied out (f32 on CPU); they must not be modified during `load`.
    let vb = unsafe { VarBuilder::from_mmaped_safetensors(weights, DType::F32, device) }.map_err(
        |e| EmbedError::Model(format!("cannot read weights in `{}`: {e}", dir.display())),
    )?;
    let weights_err = |e: candle_core::Error| {
        EmbedError::Model(format!(
            "weights in `{}` do not match config.json ({} model): {e}",
            dir.display(),
            arch.name()
        ))
    };
    Ok(match arch {
        Architecture::Bert => {
            let cfg: bert::Config = arch_config(config, dir, "BERT")?;
            let model = bert::BertModel::load(vb, &cfg).map_err(weights_err)?;
            let pad = u32::try_from(cfg.pad_token_id).unwrap_or(0);
            (Net::Bert(model), cfg.hidden_size, pad)
        }
        Architecture::Qwen3 => {
            let cfg: qwen3::Config = arch_config(config, dir, "Qwen3")?;
            // Qwen3-Embedding checkpoints are saved as the bare `Qwen3Model`, whose
            // tensor names lack the `model.` prefix that candle's loader expects.
            let vb = if vb.contains_tensor("model.embed_tokens.weight") {
                vb
            } else if vb.contains_tensor("embed_tokens.weight") {
                vb.rename_f(|n: &str| n.strip_prefix("model.").unwrap_or(n).to_string())
            } else {
                return Err(EmbedError::Model(format!(
                    "weights in `{}` have neither `model.embed_tokens.weight` nor `embed_tokens.weight`; not a Qwen3 checkpoint",
                    dir.display()
                )));
            };
            let model = qwen3::Model::new(&cfg, vb).map_err(weights_err)?;
            (Net::Qwen3(model), cfg.hidden_size, 0)
        }
    })
}

/// Pool `hidden` [b, l, h] with a right-padding `mask` [b, l] (1 = token) into [b, h].
fn pool(hidden: &Tensor, mask: &Tensor, lens: &[usize], pooling: Pooling) -> Result<Tensor> {
    let hidden = hidden.to_dtype(DType::F32)?;
    let m = mask.to_dtype(DType::F32)?.unsqueeze(D::Minus1)?; // [b, l, 1]
    Ok(match pooling {
        Pooling::Mean => {
            let sum = hidden.broadcast_mul(&m)?.sum(1)?; // [b, h]
            let count = m.sum(1)?.clamp(1e-9f32, f32::MAX)?; // [b, 1]
            sum.broadcast_div(&count)?
        }
        Pooling::Cls => hidden.i((.., 0))?.contiguous()?,
        Pooling::Max => {
            // Padding positions get -1e9, as sentence-transformers does.
            let penalty = ((m.ones_like()? - &m)? * -1e9f64)?;
            hidden.broadcast_add(&penalty)?.max(1)?
        }
        Pooling::LastToken => {
            let rows = lens
                .iter()
                .enumerate()
                .map(|(i, &n)| hidden.i((i, n.saturating_sub(1))))
                .collect::<candle_core::Result<Vec<_>>>()?;
            Tensor::stack(&rows, 0)?
        }
    })
}

impl Embedder for LocalModel {
    fn name(&self) -> String {
        if self.prompts.source == PromptSource::Override {
            format!("{}+custom-prompts", self.name)
        } else {
            self.name.clone()
        }
    }

    fn id(&self) -> String {
        format!(
            "local:{}@{}/{}/pool={}/norm={}/max_seq={}/lower={}/query={:?}/document={:?}",
            self.name,
            self.fingerprint,
            self.arch.name(),
            self.pooling.name(),
            self.normalize,
            self.max_seq_length,
            self.do_lower_case,
            self.prompts.query,
            self.prompts.document
        )
    }

    fn dims(&self) -> Option<usize> {
        Some(self.dims)
    }

    fn prompts(&self) -> Prompts {
        self.prompts.clone()
    }

    fn embed_documents_with_progress(
        &self,
        texts: &[String],
        progress: Progress<'_>,
    ) -> Result<Vec<Vec<f32>>> {
        let prepared: Vec<String> = texts
            .iter()
            .map(|t| self.prepare(&self.prompts.document, t))
            .collect();
        self.embed_prepared(&prepared, progress)
    }

    fn embed_query(&self, text: &str) -> Result<Vec<f32>> {
        let prepared = vec![self.prepare(&self.prompts.query, text)];
        Ok(self.embed_prepared(&prepared, &|_, _| {})?.remove(0))
    }
}
