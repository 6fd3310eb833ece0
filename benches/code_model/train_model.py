"""The training step of `train.py` (numpy; run under its venv).

A text's vector is the L2-normalised sum of its tokens' rows (special
tokens dropped, the first 128 ids kept: what `src/index/model.rs` does), so
the gradient of the in-batch InfoNCE loss reaches exactly the rows of the
tokens in the batch.
"""

import json
import random
import shutil
import sys
from pathlib import Path

import numpy as np
from scipy import sparse
from safetensors.numpy import load_file, save_file
from tokenizers import Tokenizer

LIMIT = 128
SEED = 31


def encode(tok, special, texts):
    out = []
    for enc in tok.encode_batch(texts, add_special_tokens=False):
        ids = [i for i in enc.ids[:LIMIT] if i not in special]
        out.append(np.asarray(ids, dtype=np.int64))
    return out


def embed(E, seqs):
    """Normalised vectors of token sequences (empty ones: zero), the sums
    before normalising, their norms, and the sequences as a sparse count
    matrix (a text's vector is that row times `E`; the gradient of `E` is
    its transpose times the vectors' gradients)."""
    n = np.array([len(s) for s in seqs])
    indptr = np.concatenate([[0], np.cumsum(n)])
    flat = np.concatenate(seqs)
    C = sparse.csr_matrix((np.ones(len(flat), dtype=np.float32), flat, indptr), shape=(len(seqs), E.shape[0]))
    m = C @ E
    norm = np.linalg.norm(m, axis=1, keepdims=True)
    return m / np.maximum(norm, 1e-9), m, norm, C


def recall_at(E, qs, cs, k=1):
    """Share of queries whose own code is among the k nearest of all codes."""
    q = embed(E, qs)[0]
    c = embed(E, cs)[0]
    s = q @ c.T
    own = np.diag(s)[:, None]
    rank = (s > own).sum(axis=1)
    return float((rank < k).mean())


def negatives(tok, special, pair, k=None):
    """The token sequences of up to `k` of a pair's negatives. A unit
    whose text holds the query (a sibling documented with the same
    sentence) is no negative."""
    texts = [n for n in pair.get("negs", [])[:k] if pair["query"] not in n]
    return [s for s in encode(tok, special, texts) if len(s)] if texts else []


def first_in_file(E, qs, cs, negs):
    """Share of queries whose own code scores above every other unit of
    its file (of the pairs that have some)."""
    won = n = 0
    for q, c, ns in zip(qs, cs, negs):
        if ns:
            v = embed(E, [q, c] + ns)[0]
            s = v[1:] @ v[0]
            won += bool((s[1:] < s[0]).all())
            n += 1
    return won / max(n, 1)


def train(args, pairs_path):
    rng = random.Random(SEED)
    base = Path(args.base)
    tok = Tokenizer.from_file(str(base / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    special = {a["id"] for a in json.loads((base / "tokenizer.json").read_text())["added_tokens"] if a["special"]}
    E0 = load_file(str(base / "model.safetensors"))["embeddings"].astype(np.float32)
    pairs = [json.loads(l) for l in open(pairs_path)]
    # Whole sources held out to watch generalisation (5 %).
    srcs = sorted({p["source"] for p in pairs})
    rng.shuffle(srcs)
    val_src = set(srcs[: max(1, len(srcs) // 20)])
    qs = encode(tok, special, [p["query"] for p in pairs])
    cs = encode(tok, special, [p["code"] for p in pairs])
    # Hard negatives: other units of the pair's file as the index sees them
    # (`pairs` keeps up to `NEGATIVES` of them); none unless asked.
    negs = [negatives(tok, special, p, args.negatives) if args.negatives else [] for p in pairs]
    keep = [i for i in range(len(pairs)) if len(qs[i]) and len(cs[i])]
    tr = [i for i in keep if pairs[i]["source"] not in val_src]
    va = [i for i in keep if pairs[i]["source"] in val_src][:2000]
    print(f"{len(tr)} training pairs, {len(va)} validation pairs from {len(val_src)} held-out sources", file=sys.stderr)
    vq, vc = [qs[i] for i in va], [cs[i] for i in va]
    # Validation negatives are read whatever `--negatives` says.
    vn = [negatives(tok, special, pairs[i]) for i in va]
    print(f"before: recall@1 {recall_at(E0, vq, vc):.3f} recall@10 {recall_at(E0, vq, vc, 10):.3f}"
          f" first in its file {first_in_file(E0, vq, vc, vn):.3f}", file=sys.stderr)

    E = E0.copy()
    m1 = np.zeros_like(E)
    m2 = np.zeros_like(E)
    b1, b2, eps = 0.9, 0.999, 1e-8
    steps = int(args.epochs * len(tr) / args.batch)
    t = 0
    order = []
    by_source = {}
    for i in tr:
        by_source.setdefault(pairs[i]["source"], []).append(i)
    for step in range(steps):
        if len(order) < args.batch:
            # An epoch: with `grouped`, that share of the pairs come in
            # batches of one source after another (the functions of one
            # package are what a search has to tell apart), the rest mixed.
            srcs = sorted(by_source)
            rng.shuffle(srcs)
            grouped, mixed = [], []
            for src in srcs:
                ps = by_source[src][:]
                rng.shuffle(ps)
                k = int(round(len(ps) * args.grouped))
                grouped += ps[:k]
                mixed += ps[k:]
            rng.shuffle(mixed)
            chunks = [grouped[i : i + args.batch] for i in range(0, len(grouped), args.batch)]
            chunks += [mixed[i : i + args.batch] for i in range(0, len(mixed), args.batch)]
            rng.shuffle(chunks)
            order += [i for c in chunks for i in c]
        batch, order = order[: args.batch], order[args.batch:]
        q, qm, qn, Cq = embed(E, [qs[i] for i in batch])
        # The codes: the batch's own, then its pairs' hard negatives. A
        # query is scored against all of them; a code (the reverse
        # direction) against the batch's queries only.
        B = len(batch)
        c, cm, cn, Cc = embed(E, [cs[i] for i in batch] + [n for i in batch for n in negs[i]])
        S = q @ c.T / args.tau
        P = np.exp(S - S.max(axis=1, keepdims=True))
        P /= P.sum(axis=1, keepdims=True)
        Sb = S[:, :B]
        Pt = np.exp(Sb.T - Sb.T.max(axis=1, keepdims=True))
        Pt /= Pt.sum(axis=1, keepdims=True)
        loss = -(np.log(np.diag(P) + 1e-12).mean() + np.log(np.diag(Pt) + 1e-12).mean()) / 2
        dS = P - np.eye(B, len(c))
        dS[:, :B] += (Pt - np.eye(B)).T
        dS /= 2 * B * args.tau
        dq = dS @ c
        dc = dS.T @ q
        dqm = (dq - q * (q * dq).sum(axis=1, keepdims=True)) / qn
        dcm = (dc - c * (c * dc).sum(axis=1, keepdims=True)) / cn
        G = np.asarray(Cq.T @ dqm + Cc.T @ dcm)
        if args.keep:
            G += args.keep * (E - E0)
        t += 1
        m1 = b1 * m1 + (1 - b1) * G
        m2 = b2 * m2 + (1 - b2) * G * G
        E -= args.lr * (m1 / (1 - b1 ** t)) / (np.sqrt(m2 / (1 - b2 ** t)) + eps)
        if step % 100 == 0 or step == steps - 1:
            print(f"step {step}/{steps} loss {loss:.3f}", file=sys.stderr)
    print(f"after:  recall@1 {recall_at(E, vq, vc):.3f} recall@10 {recall_at(E, vq, vc, 10):.3f}"
          f" first in its file {first_in_file(E, vq, vc, vn):.3f}", file=sys.stderr)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    save_file({"embeddings": E.astype(np.float16)}, str(out / "model.safetensors"))
    shutil.copyfile(base / "tokenizer.json", out / "tokenizer.json")
    config = json.loads((base / "config.json").read_text())
    config["base_model"] = f"{config.get('base_model', base.name)}, trained on {len(tr)} doc/code pairs (benches/code_model)"
    config["training"] = {k: getattr(args, k) for k in ("epochs", "lr", "tau", "keep", "batch", "grouped", "negatives")}
    (out / "config.json").write_text(json.dumps(config))
    print(f"model -> {out}", file=sys.stderr)
