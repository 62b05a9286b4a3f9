"""Referee for the sampling filters: transformers' logits processors (hypothesis, vocabularies
up to 50,000)."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from transformers.generation.logits_process import (
    LogitsProcessorList,
    MinPLogitsWarper,
    RepetitionPenaltyLogitsProcessor,
    TemperatureLogitsWarper,
    TopKLogitsWarper,
    TopPLogitsWarper,
    TypicalLogitsWarper,
)

from ledgerbuild.sim.sampling import filter_probs

pytestmark = pytest.mark.oracle


def _hf(logits, ids, t, k, p, mp, typical, rep):
    procs = LogitsProcessorList()
    if rep != 1.0:
        procs.append(RepetitionPenaltyLogitsProcessor(rep))
    if t != 1.0:
        procs.append(TemperatureLogitsWarper(t))
    if k:
        procs.append(TopKLogitsWarper(k))
    if p < 1.0:
        procs.append(TopPLogitsWarper(p))
    if mp > 0:
        procs.append(MinPLogitsWarper(mp))
    if typical < 1.0:
        procs.append(TypicalLogitsWarper(typical))
    scores = procs(torch.tensor([ids], dtype=torch.long), torch.tensor(logits)[None])
    return torch.softmax(scores, dim=-1)[0].numpy()


@settings(max_examples=60, deadline=None)
@given(
    st.integers(2, 50_000),
    st.integers(0, 2**31),
    st.floats(0.2, 3.0),
    st.integers(0, 60),
    st.floats(0.05, 1.0),
    st.sampled_from([0.0, 0.02, 0.1, 0.3]),
    st.sampled_from([1.0, 0.5, 0.9]),
    st.sampled_from([1.0, 1.2, 0.8]),
)
def test_filter_probs_equals_transformers_processors(vocab, seed, t, k, p, mp, typical, rep):
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=vocab) * rng.uniform(0.5, 5)
    ids = list(rng.integers(0, vocab, size=rng.integers(0, 20)))
    ours = filter_probs(
        logits,
        temperature=t,
        top_k=k,
        top_p=p,
        min_p=mp,
        typical_p=typical,
        repetition_penalty=rep,
        prompt_ids=ids,
        order="transformers",
    )
    theirs = _hf(logits, ids, t, k, p, mp, typical, rep)
    assert np.abs(ours - theirs).max() < 1e-6
